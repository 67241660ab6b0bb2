/// How an undo or redo commit relates to the client's history: the op log keeps it, so each client's undo
/// and redo stacks are rebuilt from the log after a restart.
public enum HistoryStep: Hashable, Sendable {
    /// Reverted the commit `of` (a change, or a redo).
    case undo(of: Int)
    /// Re-applied what the undo at `of` reverted.
    case redo(of: Int)
}
