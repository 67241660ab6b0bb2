import SnapboardCore

/// A commit as the op log holds it, with when it was logged (seconds since 1970; nil where the store keeps
/// no time: memory).
public struct LoggedCommit: Sendable, Equatable {
    public var record: CommitRecord
    public var at: Double?

    public init(record: CommitRecord, at: Double?) {
        (self.record, self.at) = (record, at)
    }
}
