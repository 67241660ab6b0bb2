import SnapboardCore
import SnapboardProtocol

/// Acks, exactly-once bookkeeping and the journal: checkpoints, commits made durable, and the rollback
/// when storage fails.
extension Room {
    /// An ack owed once the journal has made its seq durable.
    struct OwedAck {
        var seq: Int
        var session: Int
        var client: String
        var opID: String
        var receivedAt: Double
        /// An undo's or redo's shapes left alone.
        var skipped: [(shape: ShapeID, code: Rejection.Code)] = []
        /// The op changed nothing and committed nothing: `seq` is the canvas's seq when it came, and the op
        /// id is not remembered (P15).
        var unchanged = false
    }

    /// Hands the journal a snapshot of the committed state: on unload, at shutdown, and every
    /// `checkpointEvery` commits.
    public func checkpoint() {
        assert(lastJournaledSeq == nil || lastJournaledSeq == canvas.seq, "a checkpoint must hold exactly the commits journaled")
        commitsSinceCheckpoint = 0
        let pruneBefore = config.keepsWholeLog ? 0 : canvas.seq - config.retainedDeltas + 1
        journal?(.checkpoint(canvas.committedSnapshot, pruneBefore: pruneBefore))
    }

    /// The journal made every commit up to `seq` durable: their senders get their acks.
    public func durable(through seq: Int, now: Double) {
        durableSeq = max(durableSeq, seq)
        var still: [OwedAck] = []
        for owed in owedAcks {
            guard owed.seq <= seq, answerIsStored(owed) else { still.append(owed); continue }
            if !owed.unchanged {
                remember(owed.opID, seq: owed.seq, for: owed.client)
                inFlight[owed.client]?[owed.opID] = nil
            }
            sessions[owed.session]?.outbox.enqueueAnswer(
                ServerMessage.ack(id: owed.opID, seq: owed.seq, skipped: owed.skipped, unchanged: owed.unchanged))
            metrics.acks += 1
            metrics.ackLatency.record(now - owed.receivedAt)
            checkBackpressure(of: owed.session, now: now)
        }
        owedAcks = still
    }

    /// The journal could not make commits durable: the room goes back to the durable state `canvas` (with
    /// the log `history` around it), everyone owed an ack gets `unavailable` instead, and every session
    /// gets a fresh welcome, so nobody keeps a state the server cannot back.
    public func storageFailed(restoring canvas: Canvas, history: [CommitRecord], epochs recorded: [Epoch],
                              answered: [AnsweredOp] = [], epoch: String = Epoch.randomID(), now: Double) {
        for owed in owedAcks {
            guard let session = sessions[owed.session] else { continue }
            reject(owed.opID, code: .unavailable, "the change could not be saved; it was not applied", to: session)
        }
        // An op that changed nothing and waits for its tick is answered as the rest: the state it was
        // measured against is gone.
        for op in tickUnchanged {
            guard let session = sessions[op.session] else { continue }
            reject(op.opID, code: .unavailable, "the canvas was rolled back to what was saved; send it again", to: session)
        }
        owedAcks.removeAll()
        inFlight.removeAll()
        acked.removeAll()
        ackOrder.removeAll()
        retained.removeAll()
        held.removeAll()
        tickShapes.removeAll()
        tickShapeSet.removeAll()
        tickOps.removeAll()
        tickHaptics.removeAll()
        tickUnchanged.removeAll()
        commitsSinceCheckpoint = 0
        lastJournaledSeq = nil
        self.canvas = canvas
        firstRetainedSeq = canvas.seq + 1
        restore(history)
        restore(answered)
        durableSeq = canvas.seq
        // Clients saw commits that are now gone: the history goes on as a new run.
        beginEpoch(epoch, after: recorded)
        metrics.storageFailures += 1
        isRecovering = false
        for s in order { resync(s.id) }
    }

    /// Acks the committed op `opID` of session `id`: at once without a journal, else once it is durable.
    /// An `unchanged` op committed nothing: its ack names the current seq, goes once that seq is durable
    /// (at once when it already is), and its id is not remembered, so a resend is applied afresh (P15).
    func acknowledge(_ opID: String, seq: Int, session id: Int, skipped: [(shape: ShapeID, code: Rejection.Code)] = [],
                     unchanged: Bool = false, now: Double) {
        guard let session = sessions[id] else { return }
        if journal == nil || (unchanged && seq <= durableSeq && acked[session.clientKey]?[opID]?.pending != true) {
            if !unchanged { remember(opID, seq: seq, for: session.clientKey) }
            session.outbox.enqueueAnswer(ServerMessage.ack(id: opID, seq: seq, skipped: skipped, unchanged: unchanged))
            metrics.acks += 1
        } else {
            owedAcks.append(OwedAck(seq: seq, session: id, client: session.clientKey, opID: opID, receivedAt: now, skipped: skipped,
                                    unchanged: unchanged))
            if !unchanged { inFlight[session.clientKey, default: [:]][opID] = seq }
        }
    }

    /// An op id answered for good: `seq` is its commit's, or for an op that changed nothing the canvas's seq
    /// when it came.
    struct AckedOp {
        var seq: Int
        var unchanged = false
        /// An op that changed nothing whose `answered` entry the journal has not made durable yet: its ack
        /// waits for it (P15).
        var pending = false
    }

    /// Remembers the stored answers of ops that changed nothing.
    func restore(_ answered: [AnsweredOp]) {
        for op in answered where op.seq <= canvas.seq { remember(op.opID, seq: op.seq, unchanged: true, for: op.client) }
    }

    /// An op that changed nothing is remembered at once, so a copy of it is never applied afresh; with a
    /// journal its answer is stored too, and its ack waits until that is durable.
    func rememberUnchanged(_ opID: String, seq: Int, for client: String) {
        guard acked[client]?[opID] == nil else { return }
        remember(opID, seq: seq, unchanged: true, for: client)
        guard let journal else { return }
        acked[client]?[opID]?.pending = true
        journal(.answered(AnsweredOp(canvas: canvas.id, client: client, opID: opID, seq: seq)))
    }

    /// The journal made these answers durable: the acks that waited for them go.
    public func answersDurable(_ ops: [AnsweredOp], now: Double) {
        for op in ops { acked[op.client]?[op.opID]?.pending = false }
        durable(through: durableSeq, now: now)
    }

    /// Whether an owed ack may go once its seq is durable: an unchanged one also waits for its stored answer.
    private func answerIsStored(_ owed: OwedAck) -> Bool {
        !owed.unchanged || acked[owed.client]?[owed.opID]?.pending != true
    }

    func remember(_ opID: String, seq: Int, unchanged: Bool = false, for client: String) {
        guard acked[client]?[opID] == nil else { return }
        acked[client, default: [:]][opID] = AckedOp(seq: seq, unchanged: unchanged)
        // In place: a copy taken out of the dictionary would copy all of the client's ids at every ack.
        ackOrder[client, default: []].append(opID)
        if ackOrder[client]!.count > config.rememberedOpsPerClient, let dropped = ackOrder[client]!.popFirst() {
            acked[client]![dropped] = nil
        }
    }
}
