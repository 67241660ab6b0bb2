import DequeModule
import Dispatch
import SnapboardCore
import SnapboardLock
import SnapboardProtocol

/// Per-client undo and redo (P22). Each client's stacks hold its own commits, newest last, and are
/// rebuilt from the op log (an undo or redo names the commit it reverted), so they survive reconnects and
/// restarts. An undo or redo is an ordinary commit for everyone else.
extension Room {
    /// One of a client's commits that an undo (or, on the redo stack, a redo) can revert.
    struct HistoryEntry: Sendable {
        var seq: Int
        var effect: CommittedOp
    }

    /// A client's undo and redo stacks, newest last. Once a stack is `undoDepth` deep, each new entry drops
    /// its oldest, so a deque: an array would shift the whole stack at every commit.
    struct History: Sendable {
        var undo: Deque<HistoryEntry> = []
        var redo: Deque<HistoryEntry> = []
    }

    /// Keeps the commit `seq` of `client` in its history: a change goes on the undo stack and clears the
    /// redo stack; an undo moves its target to the redo stack as the undo's own commit, and a redo back.
    /// Entries above the target are ones that had nothing left to revert: they go too. A stack is in seq
    /// order, so that is every entry from the target up (and, for a target no longer kept, nothing older).
    func noteHistory(_ effect: CommittedOp, seq: Int, client: String, step: HistoryStep?) {
        Self.note(effect, seq: seq, step: step, depth: config.undoDepth, in: &histories[client, default: History()])
    }

    /// `noteHistory` on the stacks where the dictionary holds them: a copy taken out and stored back would
    /// copy the whole stack at every commit (a restore notes each of a log's million records).
    private static func note(_ effect: CommittedOp, seq: Int, step: HistoryStep?, depth: Int, in history: inout History) {
        // Logged before 1.1, without the placement to go back to.
        if step == nil, case .place(_, nil) = effect { return }
        let entry = HistoryEntry(seq: seq, effect: effect)
        switch step {
        case nil:
            history.undo.append(entry)
            history.redo.removeAll()
        case .undo(let target)?:
            while let top = history.undo.last, top.seq >= target { history.undo.removeLast() }
            history.redo.append(entry)
        case .redo(let target)?:
            while let top = history.redo.last, top.seq >= target { history.redo.removeLast() }
            history.undo.append(entry)
        }
        if history.undo.count > depth { history.undo.removeFirst(history.undo.count - depth) }
        if history.redo.count > depth { history.redo.removeFirst(history.redo.count - depth) }
    }

    /// Every client's undo and redo stacks as a log's records leave them, built apart from a room (by storage,
    /// while it replays the canvas) and handed to `Room(canvas:history:...:undoStacks:)`.
    public struct UndoStacks: Sendable {
        let byClient: [String: History]
        /// The seq they were rebuilt up to: the room uses them only if its replay ends there.
        let through: Int

        /// The stacks of `log`'s records (in seq order) up to seq `through`, each at most `depth` deep.
        public init(_ log: [CommitRecord], through: Int, depth: Int) {
            byClient = Room.histories(log, through: through, depth: depth)
            self.through = through
        }

        /// `init(_:through:depth:)` while `work` (a replay of the same log) runs on this thread: on another
        /// thread for a log of `concurrentHistoriesFrom` records or more, after `work` for a shorter one.
        public static func rebuilt(_ log: [CommitRecord], through: Int, depth: Int, while work: () -> Void) -> UndoStacks {
            guard log.count >= Room.concurrentHistoriesFrom else {
                work()
                return UndoStacks(log, through: through, depth: depth)
            }
            let stacks = Locked<UndoStacks?>(nil)
            let rebuilding = DispatchGroup()
            DispatchQueue.global(qos: .userInitiated).async(group: rebuilding) {
                let rebuilt = UndoStacks(log, through: through, depth: depth)
                stacks.withLock { $0 = rebuilt }
            }
            work()
            rebuilding.wait()
            return stacks.withLock { $0 } ?? UndoStacks(log, through: through, depth: depth)
        }
    }

    /// Every client's history rebuilt from the op log's records (in seq order) up to seq `through`, as
    /// `noteHistory` would have kept it commit by commit.
    static func histories(_ log: [CommitRecord], through: Int, depth: Int) -> [String: History] {
        var histories: [String: History] = [:]
        for i in log.indices where log[i].seq <= through {
            guard let client = log[i].client else { continue }
            note(log[i].op, seq: log[i].seq, step: log[i].step, depth: depth, in: &histories[client, default: History()])
        }
        return histories
    }

    /// An `undo` (or `redo`) from session `id`: reverts the newest entry of its stack that still has
    /// something to revert. Shapes changed by others since, or under a gesture, are left alone and listed
    /// in the ack's `skipped`; an entry with nothing left is passed over. With none left: a reject.
    func stepHistory(_ opID: String, redo: Bool, from id: Int, now: Double) {
        guard let session = sessions[id] else { return }
        do throws(Rejection) {
            try canvas.requireSeqRoom()
        } catch {
            return reject(opID, code: .canvas(error.code), error.message, to: session)
        }
        let stack = redo ? histories[session.clientKey]?.redo ?? [] : histories[session.clientKey]?.undo ?? []
        var skipped: [(shape: ShapeID, code: Rejection.Code)] = []
        for entry in stack.reversed() {
            let (effect, left) = canvas.reverting(entry.effect)
            skipped += left
            guard let effect else { continue }
            let outcome = canvas.apply(effect: effect)
            for shape in effect.shapeIDs { held[shape] = nil }
            committed(outcome, by: id, opID: opID, client: session.clientKey,
                      step: redo ? .redo(of: entry.seq) : .undo(of: entry.seq), now: now)
            acknowledge(opID, seq: outcome.seq, session: id, skipped: skipped, now: now)
            return
        }
        let what = redo ? "redo" : "undo"
        let detail = skipped.isEmpty ? "" : ": others changed what is left of it since"
        reject(opID, code: .canvas(redo ? .nothingToRedo : .nothingToUndo), "nothing to \(what)\(detail)", to: session, now: now)
    }
}
