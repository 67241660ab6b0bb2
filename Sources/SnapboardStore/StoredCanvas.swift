import SnapboardCore

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
