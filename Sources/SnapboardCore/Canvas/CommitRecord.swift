/// A committed operation as the op log keeps it: its effect, its sequence number and, when a client's op
/// caused it, who sent it, so a resent op id can be answered from the log (exactly once).
public struct CommitRecord: Hashable, Sendable {
    public var canvas: String
    public var seq: Int
    public var op: CommittedOp
    /// The client key (a `client` id, or the session for clients without one); nil for commits the
    /// server made itself (a disconnect, an expired lease, a shutdown).
    public var client: String?
    public var opID: String?

    public init(canvas: String, seq: Int, op: CommittedOp, client: String? = nil, opID: String? = nil) {
        (self.canvas, self.seq, self.op, self.client, self.opID) = (canvas, seq, op, client, opID)
    }
}

/// What a room hands to its journal, in order.
public enum JournalEntry: Hashable, Sendable {
    /// A committed op, to append to the log.
    case commit(CommitRecord)
    /// A snapshot of the committed state at `snapshot.seq`; the log before `pruneBefore` may go.
    case checkpoint(CanvasSnapshot, pruneBefore: Int)

    public var canvas: String {
        switch self {
        case .commit(let r): r.canvas
        case .checkpoint(let s, _): s.id
        }
    }
}
