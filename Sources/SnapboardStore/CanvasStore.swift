import SnapboardCore
import SnapboardSync

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
    /// Makes `snapshot` the whole stored canvas: earlier checkpoints and log are dropped (an import).
    func replace(with snapshot: CanvasSnapshot) throws
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

    public func replace(with snapshot: CanvasSnapshot) {
        state.withLock { $0[snapshot.id] = StoredCanvas(snapshot: snapshot, log: []) }
    }
}
