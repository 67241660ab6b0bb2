/// What a room hands to its journal, in order.
public enum JournalEntry: Hashable, Sendable {
    /// A committed op, to append to the log.
    case commit(CommitRecord)
    /// A snapshot of the committed state at `snapshot.seq`; the log before `pruneBefore` may go.
    case checkpoint(CanvasSnapshot, pruneBefore: Int)
    /// A run began: recorded before its first commit, so a run that committed nothing leaves no trace.
    case epoch(canvas: String, Epoch)

    public var canvas: String {
        switch self {
        case .commit(let r): r.canvas
        case .checkpoint(let s, _): s.id
        case .epoch(let canvas, _): canvas
        }
    }
}
