import SnapboardCore

/// Where canvases live while they are not loaded. The server asks it for a canvas on first join and hands
/// it back on unload.
public protocol CanvasStore: AnyObject {
    /// The canvas with `id`, or nil when it has never been saved.
    func load(_ id: String) throws -> CanvasSnapshot?
    func save(_ snapshot: CanvasSnapshot) throws
}

/// A store in memory: canvases survive unloading but not a restart.
public final class MemoryCanvasStore: CanvasStore {
    private var snapshots: [String: CanvasSnapshot] = [:]

    public init() {}

    public func load(_ id: String) -> CanvasSnapshot? { snapshots[id] }

    public func save(_ snapshot: CanvasSnapshot) { snapshots[snapshot.id] = snapshot }
}
