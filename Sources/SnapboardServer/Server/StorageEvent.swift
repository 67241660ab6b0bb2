import SnapboardStore
import SnapboardCore

/// What storage reports back to the service thread: a load's result (checked and mostly replayed), a reload
/// after a failed write, commits made durable, writes that failed.
enum StorageEvent: Sendable {
    case loaded(String, Result<LoadedCanvas, any Error>)
    case reloaded(String, Result<StoredCanvas, any Error>)
    case durable([String: Int])
    case answered([AnsweredOp])
    case failed(Set<String>, any Error)
}
