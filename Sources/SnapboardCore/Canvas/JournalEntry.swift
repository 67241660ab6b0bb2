/// What a room hands to its journal, in order.
public enum JournalEntry: Hashable, Sendable {
    /// A committed op, to append to the log.
    case commit(CommitRecord)
    /// A snapshot of the committed state at `snapshot.seq`; the log before `pruneBefore` may go.
    case checkpoint(CanvasSnapshot, pruneBefore: Int)
    /// A run began: recorded before its first commit, so a run that committed nothing leaves no trace.
    case epoch(canvas: String, Epoch)
    /// An op that changed nothing was answered: remembered with the log, so that a resend of it is answered
    /// the same way, never applied afresh after ops its client sent later (P15).
    case answered(AnsweredOp)

    public var canvas: String {
        switch self {
        case .commit(let r): r.canvas
        case .checkpoint(let s, _): s.id
        case .epoch(let canvas, _): canvas
        case .answered(let a): a.canvas
        }
    }
}

/// An op of `client` that changed nothing, answered `unchanged` as of `seq` (the canvas's seq when it came).
public struct AnsweredOp: Hashable, Sendable {
    public var canvas: String
    public var client: String
    public var opID: String
    public var seq: Int

    public init(canvas: String, client: String, opID: String, seq: Int) {
        self.canvas = canvas
        self.client = client
        self.opID = opID
        self.seq = seq
    }
}
