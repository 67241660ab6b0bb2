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

/// How an undo or redo commit relates to the client's history: the op log keeps it, so each client's undo
/// and redo stacks are rebuilt from the log after a restart.
public enum HistoryStep: Hashable, Sendable {
    /// Reverted the commit `of` (a change, or a redo).
    case undo(of: Int)
    /// Re-applied what the undo at `of` reverted.
    case redo(of: Int)
}

/// One run of a canvas's history: from a load (or a rollback after a failed write) to the next. Commits
/// go out before they are durable, so a crash can lose the end of a run that some clients saw; the next run
/// starts again from what was durable, `start`, under a fresh id. A client's `since` is a base the server
/// holds only if it lies at or before the point where the client's run was cut short (P16).
public struct Epoch: Hashable, Sendable {
    /// Random, 16 hex digits: a new one for every run.
    public var id: String
    /// The seq the run started from: every commit up to it was durable when it began.
    public var start: Int

    public init(id: String, start: Int) {
        (self.id, self.start) = (id, start)
    }

    /// A fresh random id.
    public static func randomID() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// True when a client that holds `since` from run `id` shares its history with the current run, the last
    /// of `runs` (oldest first): its run is the current one, or it was cut short no earlier than `since`.
    public static func holds(since: Int, of id: String, in runs: [Epoch]) -> Bool {
        guard let i = runs.lastIndex(where: { $0.id == id }) else { return false }
        return i == runs.count - 1 || since <= runs[i + 1].start
    }
}

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
