import Dispatch
import SnapboardCore
import SnapboardLock

/// A canvas as storage holds it: its latest checkpoint and the log of commits around it (those after the
/// checkpoint, to replay, and those before it inside the resume window, for exactly-once bookkeeping).
public struct StoredCanvas: Hashable, Sendable {
    public var snapshot: CanvasSnapshot?
    public var log: [CommitRecord]
    /// The recorded runs of its history, oldest first (at most `Epoch.kept`).
    public var epochs: [Epoch]
    /// The ops that changed nothing and were answered so, whose seq is not before the log's first (P15).
    public var answered: [AnsweredOp]

    public init(snapshot: CanvasSnapshot?, log: [CommitRecord], epochs: [Epoch] = [], answered: [AnsweredOp] = []) {
        self.snapshot = snapshot
        self.log = log
        self.epochs = epochs
        self.answered = answered
    }

    /// Why the engine must not load this canvas, or nil: a checkpoint that fails `CanvasSnapshot.problem`
    /// or names another canvas, a logged commit whose seq (or the seq its undo or redo names) is outside
    /// `1…Canvas.maxSeq`, or whose effect fails `CommittedOp.problem(in:)`, a seq the log holds twice or out
    /// of order, a gap in the commits after the checkpoint or one of them creating a shape that exists, or a
    /// run starting outside `0…Canvas.maxSeq`. `config` is for a canvas that was never checkpointed.
    public func problem(id: String, default config: CanvasConfig) -> String? {
        if let snapshot {
            guard snapshot.id == id else { return "its checkpoint names canvas \(snapshot.id.prefix(64))" }
            if let problem = snapshot.problem { return "checkpoint at seq \(snapshot.seq): \(problem)" }
        } else if let problem = config.problem {
            return "config: \(problem)"
        }
        let config = snapshot?.config ?? config
        if let problem = Self.recordProblem(log, config: config) { return problem }
        // Replay takes the commits after the checkpoint one by one: they must follow it without a gap (a
        // room and an export would otherwise rebuild different canvases), in order, never past `maxSeq`.
        // A creation of a shape that exists would leave two shapes under one id.
        // A placement must fit the kind of the shape it places (a connector's frame is 16 high, P28), and a
        // reconnect must name a connector: the kinds are followed through the commits.
        var next = (snapshot?.seq ?? 0) + 1
        var connector = ShapeKinds(snapshot?.shapes ?? [])
        // Every placement passed `Placement.problem(in:)` above; what is left depends on the shape's kind.
        func misfit(_ p: Placement, connector isConnector: Bool?) -> String? {
            guard let isConnector else { return nil }
            return p.kindProblem(in: config, connector: isConnector)
        }
        for i in log.indices {
            let seq = log[i].seq
            // Each seq once, in order, before the checkpoint too: a seq stored as a real (45000.5) reads as
            // an integer and could name a commit twice, and a room and an export would keep different ones.
            if i > 0, seq <= log[i - 1].seq { return "the log holds seq \(seq) after seq \(log[i - 1].seq)" }
            guard seq >= next else { continue }
            guard seq == next else { return "the log skips from seq \(next - 1) to \(seq)" }
            next += 1
            switch log[i].op {
            case .create(let shape, _):
                guard connector.insert(shape.id, connector: shape.kind.isConnector) else {
                    return "commit \(seq) creates shape \(shape.id), which exists"
                }
            case .clear:
                connector.removeAll()
            case .remove(let shapes):
                for shape in shapes { connector.remove(shape.id) }
            case .restore(let shapes):
                for shape in shapes { _ = connector.insert(shape.id, connector: shape.kind.isConnector) }
            case .place(let after, let before):
                // With no connector on the canvas, only a placement with a connector's frame can misfit (as a
                // shape of another kind it must fit minSize…maxSize): most placements need no lookup.
                guard connector.count > 0 || after.isConnectorFrame || before?.isConnectorFrame == true else { break }
                // One lookup for both: a placement's before is the same shape's.
                let kind = connector[after.id]
                if let problem = misfit(after, connector: kind) ?? before.flatMap({ misfit($0, connector: $0.id == after.id ? kind : connector[$0.id]) }) {
                    return "commit \(seq): \(problem)"
                }
            case .arrange(let after, let before):
                if let problem = (after + before).lazy.compactMap({ misfit($0, connector: connector[$0.id]) }).first {
                    return "commit \(seq): \(problem)"
                }
            case .reconnect(let after, _):
                if connector[after.id] == false { return "commit \(seq) reconnects \(after.id), which is no connector" }
            case .order, .lock, .edit:
                break
            }
        }
        for epoch in epochs where !(0...Canvas.maxSeq).contains(epoch.start) {
            return "a run starts at seq \(epoch.start), outside 0...\(Canvas.maxSeq)"
        }
        return nil
    }

    /// The shortest log whose records `recordProblem` checks on several threads.
    static let parallelChecksFrom = 20_000

    /// The first record, in log order, whose seq (or the seq its undo or redo names) is outside
    /// `1…Canvas.maxSeq`, or whose effect fails `CommittedOp.problem(in:)`. Each record's check stands alone,
    /// so a long log is checked in slices on every core, and the first problem of the first slice that has
    /// one is the one reported, as checking in order would.
    static func recordProblem(_ log: [CommitRecord], config: CanvasConfig) -> String? {
        @Sendable func check(_ range: Range<Int>) -> String? {
            let seqs = 1...Canvas.maxSeq
            // By index, not `for record in log`: a record is read where it lies instead of copied out, a
            // million times on a long recovery.
            for i in range {
                let seq = log[i].seq
                guard seqs.contains(seq) else { return "a logged commit has seq \(seq), outside 1...\(Canvas.maxSeq)" }
                switch log[i].step {
                case .undo(let target)?, .redo(let target)?:
                    guard seqs.contains(target) else { return "commit \(seq) names seq \(target), outside 1...\(Canvas.maxSeq)" }
                case nil: break
                }
                if let problem = log[i].op.problem(in: config) { return "commit \(seq): \(problem)" }
            }
            return nil
        }
        guard log.count >= parallelChecksFrom else { return check(log.indices) }
        let slices = 16, size = (log.count + slices - 1) / slices
        let found = Locked([String?](repeating: nil, count: slices))
        DispatchQueue.concurrentPerform(iterations: slices) { k in
            guard let problem = check((k * size)..<min(log.count, (k + 1) * size)) else { return }
            found.withLock { $0[k] = problem }
        }
        return found.withLock { $0.lazy.compactMap { $0 }.first }
    }

    /// Throws `DamagedCanvas` when `problem(id:default:)` finds one.
    public func validate(id: String, default config: CanvasConfig) throws(DamagedCanvas) {
        if let reason = problem(id: id, default: config) { throw DamagedCanvas(canvas: id, reason: reason) }
    }

    /// The canvas the checkpoint and the log describe, with every commit after the checkpoint replayed.
    /// Throws `DamagedCanvas` when they fail the range checks.
    public func recovered(id: String, default config: CanvasConfig) throws -> Canvas {
        try validate(id: id, default: config)
        var canvas = try snapshot.map { try Canvas(snapshot: $0) } ?? Canvas(id: id, config: config)
        canvas.replay(log[...], after: canvas.seq)
        return canvas
    }
}

/// Whether each shape of a canvas is a connector, followed through its commits, and how many are.
private struct ShapeKinds {
    private var isConnector: [ShapeID: Bool] = [:]
    /// How many of the shapes are connectors.
    private(set) var count = 0

    /// The checkpoint's shapes; of two with one id, the first.
    init(_ shapes: [Shape]) {
        for shape in shapes { _ = insert(shape.id, connector: shape.kind.isConnector) }
    }

    /// True for a connector, false for another shape, nil for none.
    subscript(id: ShapeID) -> Bool? { isConnector[id] }

    /// Adds a shape; false (and nothing changed) when one with its id exists.
    mutating func insert(_ id: ShapeID, connector: Bool) -> Bool {
        guard isConnector[id] == nil else { return false }
        isConnector[id] = connector
        if connector { count += 1 }
        return true
    }

    mutating func remove(_ id: ShapeID) {
        if isConnector.removeValue(forKey: id) == true { count -= 1 }
    }

    mutating func removeAll() {
        isConnector.removeAll()
        count = 0
    }
}

extension StoredCanvas {
    /// The committed canvas right after seq `seq`: the checkpoint when it is not newer, else the empty canvas
    /// when the log still reaches back to seq 1, with the logged commits up to `seq` replayed on it.
    /// `config` is for a canvas that was never checkpointed (its config is the server's default).
    public func state(at seq: Int, id: String, default config: CanvasConfig) throws -> PastCanvas {
        try validate(id: id, default: config)
        let last = max(snapshot?.seq ?? 0, log.last?.seq ?? 0)
        guard seq <= last else { return .notYet(last: last) }
        var canvas: Canvas
        if let snapshot, snapshot.seq <= seq {
            canvas = try Canvas(snapshot: snapshot)
        } else if seq == 0 || log.first?.seq == 1 {
            canvas = try Canvas(id: id, config: snapshot?.config ?? config)
        } else {
            return .gone(oldest: snapshot?.seq ?? max(0, (log.first?.seq ?? 1) - 1))
        }
        let base = canvas.seq
        let ops = log.lazy.filter { $0.seq > base && $0.seq <= seq }
        // Every seq in between must be there: a gap would rebuild a canvas that never was.
        guard ops.count == seq - base else { return .gone(oldest: snapshot?.seq ?? last) }
        canvas.replay(contentsOf: ops.map(\.op))
        return .canvas(canvas)
    }
}
