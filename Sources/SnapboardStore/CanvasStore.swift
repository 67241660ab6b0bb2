import SnapboardCore
import SnapboardLock

/// A canvas as storage holds it: its latest checkpoint and the log of commits around it (those after the
/// checkpoint, to replay, and those before it inside the resume window, for exactly-once bookkeeping).
public struct StoredCanvas: Hashable, Sendable {
    public var snapshot: CanvasSnapshot?
    public var log: [CommitRecord]
    /// The recorded runs of its history, oldest first (at most `Epoch.kept`).
    public var epochs: [Epoch]

    public init(snapshot: CanvasSnapshot?, log: [CommitRecord], epochs: [Epoch] = []) {
        self.snapshot = snapshot
        self.log = log
        self.epochs = epochs
    }

    /// The canvas the checkpoint and the log describe, with every commit after the checkpoint replayed.
    public func recovered(id: String, default config: CanvasConfig) throws -> Canvas {
        var canvas = try snapshot.map { try Canvas(snapshot: $0) } ?? Canvas(id: id, config: config)
        let first = canvas.seq + 1
        canvas.replay(contentsOf: log.lazy.filter { $0.seq >= first }.map(\.op))
        return canvas
    }
}

extension Epoch {
    /// How many runs a store keeps per canvas: a client from an older one gets a full snapshot.
    public static let kept = 64
}

/// Where canvases live. The server calls it only from its storage thread, never from the libwebsockets
/// service thread, because a store may block on disk.
public protocol CanvasStore: AnyObject, Sendable {
    /// The canvas with `id`: empty when it has never been saved.
    func load(_ id: String) throws -> StoredCanvas
    /// Appends commits and records checkpoints, in order, all or nothing.
    func write(_ entries: [JournalEntry]) throws
    /// Every canvas id the store holds.
    func canvases() throws -> [String]
    /// The stored canvases whose ids start with `prefix` and sort after `after`, in id order, at most
    /// `limit`: each with its latest seq and when it last changed. Loads none of them.
    func summaries(prefix: String, after: String?, limit: Int) throws -> [CanvasSummary]
    /// Makes `snapshot` the whole stored canvas: earlier checkpoints and log are dropped (an import).
    func replace(with snapshot: CanvasSnapshot) throws
    /// Removes canvas `id`, its checkpoints, log and runs; false when nothing was stored under it.
    func delete(_ id: String) throws -> Bool
    /// The logged commits of canvas `id` after seq `after`, in order, at most `limit`, with when each was
    /// logged.
    func history(_ id: String, after: Int, limit: Int) throws -> [LoggedCommit]
}

/// A commit as the op log holds it, with when it was logged (seconds since 1970; nil where the store keeps
/// no time: memory).
public struct LoggedCommit: Sendable, Equatable {
    public var record: CommitRecord
    public var at: Double?

    public init(record: CommitRecord, at: Double?) {
        (self.record, self.at) = (record, at)
    }
}

/// What a listing says of a stored canvas, without loading it.
public struct CanvasSummary: Sendable, Equatable {
    public var id: String
    /// The last committed seq.
    public var seq: Int
    /// When it last changed, in seconds since 1970; nil where the store keeps no time (memory).
    public var changedAt: Double?

    public init(id: String, seq: Int, changedAt: Double?) {
        (self.id, self.seq, self.changedAt) = (id, seq, changedAt)
    }
}

/// A store in memory: canvases survive unloading but not a restart. For tests and `--data :memory:`.
public final class MemoryCanvasStore: CanvasStore {
    private let state = Locked<[String: StoredCanvas]>([:])

    public init() {}

    public func load(_ id: String) -> StoredCanvas {
        state.withLock { $0[id] } ?? StoredCanvas(snapshot: nil, log: [])
    }

    public func write(_ entries: [JournalEntry]) {
        state.withLock { all in
            for entry in entries {
                var stored = all[entry.canvas] ?? StoredCanvas(snapshot: nil, log: [])
                switch entry {
                case .commit(let record):
                    stored.log.append(record)
                case .checkpoint(let snapshot, let pruneBefore):
                    stored.snapshot = snapshot
                    stored.log.removeAll { $0.seq < pruneBefore }
                case .epoch(_, let epoch):
                    stored.epochs = Array((stored.epochs + [epoch]).suffix(Epoch.kept))
                }
                all[entry.canvas] = stored
            }
        }
    }

    public func canvases() -> [String] { state.withLock { $0.keys.sorted() } }

    public func summaries(prefix: String, after: String?, limit: Int) -> [CanvasSummary] {
        state.withLock { all in
            all.keys.sorted().filter { $0.hasPrefix(prefix) && $0 > (after ?? "") }.prefix(limit).map { id in
                let stored = all[id]!
                return CanvasSummary(id: id, seq: max(stored.snapshot?.seq ?? 0, stored.log.last?.seq ?? 0), changedAt: nil)
            }
        }
    }

    public func replace(with snapshot: CanvasSnapshot) {
        state.withLock { $0[snapshot.id] = StoredCanvas(snapshot: snapshot, log: []) }
    }

    public func delete(_ id: String) -> Bool {
        state.withLock { $0.removeValue(forKey: id) } != nil
    }

    public func history(_ id: String, after: Int, limit: Int) -> [LoggedCommit] {
        let log = state.withLock { $0[id]?.log } ?? []
        return log.lazy.filter { $0.seq > after }.prefix(limit).map { LoggedCommit(record: $0, at: nil) }
    }
}

/// A canvas as it was at a past seq, as far as its checkpoint and log reach back.
public enum PastCanvas: Sendable {
    case canvas(Canvas)
    /// The canvas has not reached that seq: `last` is its newest.
    case notYet(last: Int)
    /// That seq is older than the oldest state kept: `oldest` is the earliest seq that can be rebuilt.
    case gone(oldest: Int)
}

extension StoredCanvas {
    /// The committed canvas right after seq `seq`: the checkpoint when it is not newer, else the empty canvas
    /// when the log still reaches back to seq 1, with the logged commits up to `seq` replayed on it.
    /// `config` is for a canvas that was never checkpointed (its config is the server's default).
    public func state(at seq: Int, id: String, default config: CanvasConfig) throws -> PastCanvas {
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
