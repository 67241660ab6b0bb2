import SnapboardCore

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
    /// A store for reads only, to be used on another thread while this one writes, without waiting for its
    /// writes or holding them up (`ReadPool`): a read-only SQLite connection of its own. A store whose every
    /// call takes a short lock (in memory) may return itself, as the default does.
    func readOnlyConnection() throws -> CanvasStore
}

extension CanvasStore {
    public func readOnlyConnection() throws -> CanvasStore { self }
}

extension Epoch {
    /// How many runs a store keeps per canvas: a client from an older one gets a full snapshot.
    public static let kept = 64
}
