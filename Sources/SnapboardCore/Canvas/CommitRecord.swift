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
    /// The author's display name when it committed (as presence showed it), for history; nil for commits
    /// the server made itself and for commits logged before names were kept.
    public var name: String?

    /// The longest `name` kept (in characters, as presence names are): a longer one read back is dropped.
    public static let maxNameCharacters = 64

    public init(canvas: String, seq: Int, op: CommittedOp, client: String? = nil, opID: String? = nil, step: HistoryStep? = nil,
                name: String? = nil) {
        (self.canvas, self.seq, self.op, self.client, self.opID, self.step, self.name) = (canvas, seq, op, client, opID, step, name)
    }
}
