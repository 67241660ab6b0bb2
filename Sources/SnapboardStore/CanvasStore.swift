import SnapboardCore
import Synchronization

/// Where canvases live while they are not loaded. The server calls it only from its storage queue,
/// never from the libwebsockets service thread, because a store may block on disk.
public protocol CanvasStore: AnyObject, Sendable {
    /// The canvas with `id`, or nil when it has never been saved.
    func load(_ id: String) throws -> CanvasSnapshot?
    /// Saves `snapshot`, replacing any earlier one of the same canvas.
    func save(_ snapshot: CanvasSnapshot) throws
}

/// A store in memory: canvases survive unloading but not a restart. For tests and `--data :memory:`.
public final class MemoryCanvasStore: CanvasStore {
    private let snapshots = Mutex<[String: CanvasSnapshot]>([:])

    public init() {}

    public func load(_ id: String) -> CanvasSnapshot? { snapshots.withLock { $0[id] } }

    public func save(_ snapshot: CanvasSnapshot) { snapshots.withLock { $0[snapshot.id] = snapshot } }
}
