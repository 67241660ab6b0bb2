import SnapboardCore

/// What the server's room registry needs from storage: commits and checkpoints written in order, and
/// canvases loaded, both off the caller's thread. `Journal` is the real one; tests give a fake.
public protocol CanvasJournal: AnyObject {
    /// Queues a commit or checkpoint; its durability is reported later, in order.
    func append(_ entry: JournalEntry)
    /// Loads a canvas after everything queued before; `recovering` first lets writes for it through
    /// again after a failure. `done` runs on the journal's thread.
    func load(_ id: String, recovering: Bool, _ done: @escaping @Sendable (Result<StoredCanvas, any Error>) -> Void)
}
