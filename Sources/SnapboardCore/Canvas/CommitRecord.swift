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
    /// Set when the commit is an undo or a redo: which earlier commit of the same client it reverted.
    public var step: HistoryStep?

    public init(canvas: String, seq: Int, op: CommittedOp, client: String? = nil, opID: String? = nil, step: HistoryStep? = nil) {
        (self.canvas, self.seq, self.op, self.client, self.opID, self.step) = (canvas, seq, op, client, opID, step)
    }
}
