import SnapboardCore
import SnapboardProtocol

/// One canvas and the sessions on it: orders operations, applies them, acks, broadcasts deltas,
/// coalesces live updates per tick, expires leases and resumes reconnecting clients.
///
/// The room sees sessions only through their `Outbox`, never a socket, and takes time as a parameter,
/// so it is tested without a network or a clock. Not thread-safe: one thread (the service thread) owns it.
///
/// With a `journal`, an ack means durable: every commit is handed to the journal in seq order, deltas go
/// out at once, and acks wait for `durable(through:now:)`. Without one, acks go out at once.
public final class Room {
    struct Session {
        var info: SessionInfo
        var outbox: Outbox
        var participant: Participant
        var canEdit: Bool
        /// Joins and leaves reach it as changes, without the session list (revision 1.2, P11).
        var presenceChanges: Bool
        /// Live deltas reach it as placements only (revision 1.4, P8).
        var compactLive: Bool
        /// The key of exactly-once bookkeeping: the client id, or the session when it gave none.
        var clientKey: String
        var ops: TokenBucket
        var cursors: TokenBucket
        var cursorWarned = false
        var errorTimes: [Double] = []
        var resyncTimes: [Double] = []
    }

    public internal(set) var canvas: Canvas
    public let config: RoomConfig
    public let metrics: RoomMetrics
    var sessions: [Int: Session] = [:]
    /// Sessions in join order, for deterministic broadcasts.
    var order: [Int] = []
    /// A committed delta kept for resuming clients: the frame every session was sent, or one rebuilt from the
    /// log when the canvas loaded, serialised only when a client first resumes through it (a load stays
    /// cheap on the service thread however long the window).
    enum RetainedDelta {
        case frame(Frame)
        case rebuilt(Delta)
    }

    /// Committed deltas for resuming clients, oldest first: `retained[i]` has seq `firstRetainedSeq + i`.
    var retained: [RetainedDelta] = []
    /// The committed canvas as a welcome's `shapes`, serialised once for every joiner until the next commit,
    /// and shared by their queued welcomes: run and seq name a committed state exactly.
    var welcomeShapes: (epoch: String, seq: Int, json: Frame)?
    var firstRetainedSeq = 1
    /// Acked op ids per client: op id → seq.
    var acked: [String: [String: Int]] = [:]
    var ackOrder: [String: [String]] = [:]
    /// When each leased shape last saw an update.
    var leaseSeen: [ShapeID: Double] = [:]
    /// Live changes since the last tick.
    var tickShapes: [ShapeID] = []
    var tickShapeSet: Set<ShapeID> = []
    /// The op ids of the tick's live changes, with the shape each changed: a commit of that shape in the
    /// same tick supersedes them (P8).
    var tickOps: [(id: String, shape: ShapeID)] = []
    var tickBy = 0
    var tickHaptics: [Int: [Haptic]] = [:]
    /// Pointer positions since the last tick, latest per session (nil: left the canvas), in arrival order.
    var tickCursors: [Int: Point?] = [:]
    var tickCursorOrder: [Int] = []
    /// The guides and gaps (never haptics) each gesture in progress shows, by shape.
    var gestureMarks: [ShapeID: [CanvasEvent]] = [:]
    /// When the room last had no session, for unloading.
    public private(set) var emptySince: Double?
    /// Where commits and checkpoints go to become durable, in order; nil acks at once.
    public var journal: ((JournalEntry) -> Void)?
    /// Told when a session falls too far behind: `closed` when it was closed with 4000, else it was sent a
    /// fresh welcome; `queued` is the bytes it had waiting (for the server's log).
    public var onBackpressure: ((_ session: Int, _ closed: Bool, _ queued: Int) -> Void)?
    /// A budget beyond the session's own, asked for each op that passed it: nil lets the op through, a
    /// text refuses it with `rate_limited` (the server's per-address rate).
    public var admitOp: ((_ session: Int, _ now: Double) -> String?)?
    /// An ack owed once the journal has made its seq durable.
    struct OwedAck {
        var seq: Int
        var session: Int
        var client: String
        var opID: String
        var receivedAt: Double
        /// An undo's or redo's shapes left alone.
        var skipped: [(shape: ShapeID, code: Rejection.Code)] = []
    }

    var owedAcks: [OwedAck] = []
    /// Each client's undo and redo stacks, by client key.
    var histories: [String: History] = [:]
    /// Op ids committed but not yet durable, per client: a resend waits for the same ack instead of applying again.
    var inFlight: [String: [String: Int]] = [:]
    var commitsSinceCheckpoint = 0
    /// The seq of the last commit handed to the journal, to check that checkpoints agree with the log.
    var lastJournaledSeq: Int?
    /// True while storage failed and the room waits to be rolled back: every op is refused with `unavailable`.
    public var isRecovering = false
    /// The runs of this canvas's history, oldest first; the last is the current one, which starts where
    /// the room was loaded or rolled back (P16).
    public private(set) var epochs: [Epoch] = []
    /// True once the current run is handed to the journal (before its first commit).
    var epochJournaled = false

    /// The current run.
    public var epoch: Epoch { epochs[epochs.count - 1] }

    /// A room for `canvas` (typically restored from its latest snapshot) and the log of commits around it.
    /// Commits after the snapshot are replayed, and rebuild the deltas kept for resuming clients; all of
    /// them, before or after, restore exactly-once bookkeeping.
    /// `epochs` are the runs storage recorded; the room starts a new one, `epoch`, from the restored seq.
    public init(canvas: Canvas, history: [CommitRecord] = [], epochs: [Epoch] = [], epoch: String = Epoch.randomID(),
                config: RoomConfig = RoomConfig(), metrics: RoomMetrics = RoomMetrics(), now: Double) {
        self.canvas = canvas
        self.config = config
        self.metrics = metrics
        self.firstRetainedSeq = canvas.seq + 1
        self.emptySince = now
        restore(history)
        beginEpoch(epoch, after: epochs)
    }

    func beginEpoch(_ id: String, after recorded: [Epoch]) {
        epochs = recorded.filter { $0.id != id } + [Epoch(id: id, start: canvas.seq)]
        epochJournaled = false
    }

    /// True when a client holding `since` from run `epoch` can be sent just what it missed: the deltas are
    /// retained and its base is one this server holds (P16). Without a run, the base cannot be vouched for.
    func canResume(since: Int?, epoch: String?) -> Bool {
        guard let since, let epoch, since <= canvas.seq, since + 1 >= firstRetainedSeq else { return false }
        return Epoch.holds(since: since, of: epoch, in: epochs)
    }

    func restore(_ history: [CommitRecord]) {
        let log = history.filter { $0.seq > canvas.seq }.sorted { $0.seq < $1.seq }
        // Replay in bulk up to the resume window, then one by one, keeping each delta for resuming clients.
        let bulk = max(0, log.count - config.retainedDeltas)
        if bulk == 0 {
            // The window reaches back before the checkpoint (after a shutdown or an unload): those commits'
            // deltas are rebuilt from the log itself, so a client reconnecting after a deploy still resumes.
            for (seq, delta) in rebuiltDeltas(history, limit: config.retainedDeltas - log.count) { retain(.rebuilt(delta), seq: seq) }
        }
        canvas.replay(contentsOf: log.prefix(bulk).map(\.op))
        if retained.isEmpty { firstRetainedSeq = canvas.seq + 1 }
        for record in log.dropFirst(bulk) where record.seq == canvas.seq + 1 {
            let outcome = canvas.replay(record.op)
            let delta = Delta(seq: outcome.seq, by: 0, ops: record.opID.map { [$0] } ?? [], shapes: outcome.changed,
                              removed: outcome.removed, cleared: outcome.cleared, live: false)
            retain(.rebuilt(delta), seq: outcome.seq)
        }
        for record in history.suffix(config.rememberedOpsPerClient * 4) {
            if let client = record.client, let opID = record.opID, record.seq <= canvas.seq {
                remember(opID, seq: record.seq, for: client)
            }
        }
        restoreHistories(history)
    }

    /// The committed deltas of the commits up to the canvas's seq (those its checkpoint already holds), at
    /// most `limit` of them, rebuilt from their log records: a creation carries its whole shape; a placement
    /// takes the rest of its shape (kind, fill, hatch) from the shape's creation earlier in the run, or else
    /// from the checkpoint. Only the unbroken run of records ending at the canvas's seq counts, and it starts
    /// after any placement whose shape cannot be told for sure (one created before the run and gone since,
    /// or an id created again later in the run): a resume may fall back to a snapshot, never go wrong.
    func rebuiltDeltas(_ history: [CommitRecord], limit: Int) -> [(seq: Int, delta: Delta)] {
        var run: [CommitRecord] = []
        var expected = canvas.seq
        for record in history.sorted(by: { $0.seq > $1.seq }) where record.seq <= canvas.seq {
            guard record.seq == expected, run.count < limit else { break }
            run.append(record)
            expected -= 1
        }
        run.reverse()
        /// The shapes an effect brings in whole.
        func arrivals(_ op: CommittedOp) -> [Shape] {
            switch op {
            case .create(let shape, _): [shape]
            case .restore(let shapes): shapes
            case .place, .clear, .remove: []
            }
        }
        var createdLater = Set<ShapeID>()
        for record in run { for shape in arrivals(record.op) { createdLater.insert(shape.id) } }
        var created: [ShapeID: Shape] = [:]
        var frames: [(seq: Int, delta: Delta)] = []
        for record in run {
            var shapes: [Shape] = []
            var removed: [ShapeID] = []
            var cleared = false
            switch record.op {
            case .create, .restore:
                shapes = arrivals(record.op)
                for shape in shapes { created[shape.id] = shape }
            case .remove(let gone):
                removed = gone.map(\.id)
            case .place(let placement, _):
                let known = created[placement.id] ?? (createdLater.contains(placement.id) ? nil : canvas.shape(placement.id))
                guard let known else {
                    frames.removeAll()
                    continue
                }
                shapes = [placement.applied(to: known)]
            case .clear:
                cleared = true
            }
            for shape in arrivals(record.op) { createdLater.remove(shape.id) }
            let delta = Delta(seq: record.seq, by: 0, ops: record.opID.map { [$0] } ?? [], shapes: shapes, removed: removed,
                              cleared: cleared, live: false)
            frames.append((record.seq, delta))
        }
        return frames
    }

    public var sessionCount: Int { sessions.count }

    /// The guides and gaps of every gesture in progress, in shape-id order.
    var snapMarks: (guides: [Guide], gaps: [GapGuide]) {
        var marks: (guides: [Guide], gaps: [GapGuide]) = ([], [])
        for shape in gestureMarks.keys.sorted() {
            for event in gestureMarks[shape]! {
                switch event {
                case .guide(let g): marks.guides.append(g)
                case .gap(let g): marks.gaps.append(g)
                case .haptic: break
                }
            }
        }
        return marks
    }

    var sessionInfos: [SessionInfo] { order.compactMap { sessions[$0]?.info } }

    var leaseSessions: [ShapeID: Int] { canvas.leases.compactMapValues { Int($0) } }

    // MARK: Joining and leaving

    /// Adds a session and queues its welcome (and, when resuming, the deltas it missed).
    /// `user` is who the session is, from its access token; a client id is then the user's own, so that two
    /// users cannot share (or spoil) each other's exactly-once op ids.
    public func join(session id: Int, address: CanvasAddress, user: String? = nil, canEdit: Bool = true, outbox: Outbox, now: Double) {
        let info = SessionInfo(session: id, name: address.name ?? "guest-\(id)", client: address.client, user: user)
        let session = Session(
            info: info, outbox: outbox, participant: Participant(id: String(id), zoom: address.zoom), canEdit: canEdit,
            presenceChanges: address.revision >= 2, compactLive: address.revision >= 4,
            clientKey: address.client.map { "c:" + (user.map { "\($0.utf8.count):\($0)/" } ?? "") + $0 } ?? "s:\(id)",
            ops: TokenBucket(rate: config.opsPerSecond, now: now), cursors: TokenBucket(rate: config.cursorsPerSecond, now: now))
        sessions[id] = session
        order.append(id)
        outbox.lastDrained = now
        emptySince = nil
        if canResume(since: address.since, epoch: address.epoch), let since = address.since {
            outbox.enqueue(ServerMessage.welcome(
                session: id, snapshot: canvas.committedHeader, shapes: Array("[]".utf8), epoch: epoch.id, sessions: sessionInfos,
                leases: leaseSessions, resumed: true), counted: false)
            for seq in (since + 1)..<(canvas.seq + 1) { outbox.enqueue(retainedFrame(at: seq - firstRetainedSeq)) }
            sendLiveState(to: session)
            metrics.resumes += 1
        } else {
            sendWelcome(to: id)
        }
        broadcastPresence(.join, about: info, except: id)
    }

    /// Removes a session; its gestures commit where they were last put.
    public func leave(session id: Int, now: Double) {
        guard let session = sessions.removeValue(forKey: id) else { return }
        order.removeAll { $0 == id }
        // The leave tells everyone the cursor is gone; a position still waiting for the tick would revive it.
        if tickCursors.removeValue(forKey: id) != nil { tickCursorOrder.removeAll { $0 == id } }
        // One gesture at a time: each commit is journaled before the next happens, so a checkpoint that
        // one of them triggers holds exactly the commits journaled so far.
        for (shape, owner) in canvas.leases.sorted(by: { $0.key < $1.key }) where owner == session.participant.id {
            leaseSeen[shape] = nil
            gestureMarks[shape] = nil
            if let outcome = canvas.endGesture(on: shape) { committed(outcome, by: id, opID: nil, client: nil, now: now) }
        }
        broadcastPresence(.leave, about: session.info, except: nil)
        if sessions.isEmpty { emptySince = now }
    }

    /// Commits every gesture in progress where it was last put, telling everyone: the first step of a shutdown.
    public func commitAllGestures(now: Double) {
        for (shape, owner) in canvas.leases.sorted(by: { $0.key < $1.key }) {
            leaseSeen[shape] = nil
            gestureMarks[shape] = nil
            if let outcome = canvas.endGesture(on: shape) {
                committed(outcome, by: Int(owner) ?? 0, opID: nil, client: nil, now: now)
            }
        }
    }

    /// Hands the journal a snapshot of the committed state: on unload, at shutdown, and every
    /// `checkpointEvery` commits.
    public func checkpoint() {
        assert(lastJournaledSeq == nil || lastJournaledSeq == canvas.seq, "a checkpoint must hold exactly the commits journaled")
        commitsSinceCheckpoint = 0
        journal?(.checkpoint(canvas.committedSnapshot, pruneBefore: canvas.seq - config.retainedDeltas + 1))
    }

    // MARK: Durability

    /// The journal made every commit up to `seq` durable: their senders get their acks.
    public func durable(through seq: Int, now: Double) {
        var still: [OwedAck] = []
        for owed in owedAcks {
            guard owed.seq <= seq else { still.append(owed); continue }
            remember(owed.opID, seq: owed.seq, for: owed.client)
            inFlight[owed.client]?[owed.opID] = nil
            sessions[owed.session]?.outbox.enqueueAnswer(ServerMessage.ack(id: owed.opID, seq: owed.seq, skipped: owed.skipped))
            metrics.acks += 1
            metrics.ackLatency.record(now - owed.receivedAt)
        }
        owedAcks = still
    }

    /// The journal could not make commits durable: the room goes back to the durable state `canvas` (with
    /// the log `history` around it), everyone owed an ack gets `unavailable` instead, and every session
    /// gets a fresh welcome, so nobody keeps a state the server cannot back.
    public func storageFailed(restoring canvas: Canvas, history: [CommitRecord], epochs recorded: [Epoch],
                              epoch: String = Epoch.randomID(), now: Double) {
        for owed in owedAcks {
            guard let session = sessions[owed.session] else { continue }
            reject(owed.opID, code: .unavailable, "the change could not be saved; it was not applied", to: session)
        }
        owedAcks.removeAll()
        inFlight.removeAll()
        acked.removeAll()
        ackOrder.removeAll()
        retained.removeAll()
        leaseSeen.removeAll()
        gestureMarks.removeAll()
        tickShapes.removeAll()
        tickShapeSet.removeAll()
        tickOps.removeAll()
        tickHaptics.removeAll()
        commitsSinceCheckpoint = 0
        lastJournaledSeq = nil
        self.canvas = canvas
        firstRetainedSeq = canvas.seq + 1
        restore(history)
        // Clients saw commits that are now gone: the history goes on as a new run.
        beginEpoch(epoch, after: recorded)
        metrics.storageFailures += 1
        isRecovering = false
        for sid in order { resync(sid) }
    }

    /// A fresh welcome in place of everything queued for session `sid`, but for the answers (acks,
    /// rejects) it is waiting for, which follow the welcome (P17).
    func resync(_ sid: Int) {
        guard let outbox = sessions[sid]?.outbox else { return }
        let answers = outbox.reset()
        sendWelcome(to: sid)
        for answer in answers { outbox.enqueue(answer, answer: true) }
    }

    /// A fresh welcome: the committed canvas (serialised once per commit, however many join), then the live
    /// state of the shapes under a gesture, as after a resume (P3). The welcome is queued in three parts, its
    /// own head and tail around the canvas's shared bytes, so a join storm on a big canvas holds one copy
    /// of it, not one per joiner; the transport sends the parts as fragments of one message.
    func sendWelcome(to id: Int) {
        guard let session = sessions[id] else { return }
        if welcomeShapes?.epoch != epoch.id || welcomeShapes?.seq != canvas.seq {
            welcomeShapes = (epoch.id, canvas.seq, Frame(payload: ServerMessage.shapeArray(canvas.committedSnapshot.shapes)))
        }
        let (head, tail) = ServerMessage.welcomeAround(session: id, snapshot: canvas.committedHeader, epoch: epoch.id,
                                                      sessions: sessionInfos, leases: leaseSessions, resumed: false)
        session.outbox.enqueue(parts: [Frame(payload: head), welcomeShapes!.json, Frame(payload: tail)])
        sendLiveState(to: session)
    }

    /// The shapes under a gesture as they are now, with the guides and gaps on show: a live delta that
    /// brings a client just welcomed or resumed up to the live canvas.
    func sendLiveState(to session: Session) {
        guard canvas.leaseCount > 0 else { return }
        let dragged = canvas.leases.keys.sorted().compactMap { canvas.shape($0) }
        let marks = snapMarks
        session.outbox.enqueue(ServerMessage.delta(Delta(seq: canvas.seq, by: 0, ops: [], shapes: dragged, guides: marks.guides,
                                                         gaps: marks.gaps, live: true), compact: session.compactLive))
    }

    // MARK: Messages

    /// Handles one decoded message from a session.
    public func receive(_ message: ClientMessage, from id: Int, now: Double) {
        guard var session = sessions[id] else { return }
        switch message {
        case .ping(let t):
            session.outbox.enqueueAnswer(ServerMessage.pong(t: t))
        case .cursor(let at):
            moveCursor(of: id, to: at, now: now)
        case .view(let zoom):
            // The next op resolves snapping with the new zoom; a gesture in progress keeps its lease.
            sessions[id]?.participant.zoom = zoom
        case .op(let opID, let op):
            metrics.count(op: op)
            if op.commits, let seq = acked[session.clientKey]?[opID] {
                // Exactly once: a resent op that already committed gets its original ack, and nothing else happens.
                session.outbox.enqueueAnswer(ServerMessage.ack(id: opID, seq: seq))
                metrics.duplicateOps += 1
                return
            }
            if op.commits, let seq = inFlight[session.clientKey]?[opID] {
                // Committed but not durable yet: this session gets the ack when it is.
                owedAcks.append(OwedAck(seq: seq, session: id, client: session.clientKey, opID: opID, receivedAt: now))
                metrics.duplicateOps += 1
                return
            }
            guard session.canEdit else {
                reject(opID, code: .forbidden, "this session may only watch", to: session)
                return
            }
            guard !isRecovering else {
                reject(opID, code: .unavailable, "storage is failing; the canvas is being restored", to: session)
                return
            }
            guard session.ops.take(now: now) else {
                sessions[id] = session
                reject(opID, code: .rateLimited, "more than \(Int(config.opsPerSecond)) ops per second", to: session)
                return
            }
            sessions[id] = session
            if let admitOp, let refusal = admitOp(id, now) {
                reject(opID, code: .rateLimited, refusal, to: session)
                return
            }
            apply(op, id: opID, from: id, now: now)
        }
    }

    /// Keeps the latest pointer position of a session for the next tick, within its cursor budget.
    func moveCursor(of id: Int, to at: Point?, now: Double) {
        guard var session = sessions[id] else { return }
        guard session.cursors.take(now: now) else {
            if !session.cursorWarned {
                session.cursorWarned = true
                session.outbox.enqueueAnswer(ServerMessage.error(ProtocolError(
                    .rateLimited, "more than \(Int(config.cursorsPerSecond)) cursor messages per second: extra ones are dropped")))
            }
            sessions[id] = session
            metrics.cursorsDropped += 1
            return
        }
        session.cursorWarned = false
        sessions[id] = session
        if tickCursors.updateValue(at, forKey: id) == nil { tickCursorOrder.append(id) }
    }

    /// Answers a frame that was not a valid message; closes a session that keeps sending them.
    public func receiveInvalid(_ error: ProtocolError, from id: Int, now: Double) {
        guard var session = sessions[id] else { return }
        metrics.errors[error.code.rawValue, default: 0] += 1
        session.outbox.enqueueAnswer(ServerMessage.error(error))
        if error.code == .tooLarge {
            session.outbox.requestClose(code: CloseCode.messageTooBig, reason: "message too large")
        }
        session.errorTimes = session.errorTimes.filter { now - $0 < 10 } + [now]
        if session.errorTimes.count > config.maxErrors {
            session.outbox.requestClose(code: CloseCode.policyViolation, reason: "too many invalid messages")
        }
        sessions[id] = session
    }

    func reject(_ opID: String, code: RejectCode, _ message: String, to session: Session) {
        metrics.rejects[code.rawValue, default: 0] += 1
        session.outbox.enqueueAnswer(ServerMessage.reject(id: opID, code: code, message: message))
    }

    func apply(_ op: CanvasOp, id opID: String, from id: Int, now: Double) {
        guard let session = sessions[id] else { return }
        if op == .undo || op == .redo { return stepHistory(opID, redo: op == .redo, from: id, now: now) }
        let leasesBefore = canvas.leaseVersion
        let outcome: Outcome
        do {
            outcome = try canvas.apply(op, by: session.participant)
        } catch {
            reject(opID, code: .canvas(error.code), error.message, to: session)
            return
        }
        if outcome.commit != nil {
            if let shape = op.shapeID { leaseSeen[shape] = nil; gestureMarks[shape] = nil }
            if outcome.cleared { leaseSeen.removeAll(); gestureMarks.removeAll() }
            for shape in outcome.removed { leaseSeen[shape] = nil; gestureMarks[shape] = nil }
            committed(outcome, by: id, opID: opID, client: session.clientKey, now: now)
            acknowledge(opID, seq: outcome.seq, session: id, now: now)
        } else if let shape = op.shapeID {
            leaseSeen[shape] = now
            gestureMarks[shape] = outcome.events.filter { if case .haptic = $0 { false } else { true } }
            for changed in outcome.changed where tickShapeSet.insert(changed.id).inserted { tickShapes.append(changed.id) }
            tickOps.append((opID, shape))
            tickBy = id
            let haptics = outcome.events.compactMap { if case .haptic(let h) = $0 { h } else { nil } }
            if !haptics.isEmpty { tickHaptics[id, default: []] += haptics }
        }
        if canvas.leaseVersion != leasesBefore { broadcastPresence(.lease, about: session.info, except: nil) }
    }

    /// Acks the committed op `opID` of session `id`: at once without a journal, else once it is durable.
    func acknowledge(_ opID: String, seq: Int, session id: Int, skipped: [(shape: ShapeID, code: Rejection.Code)] = [], now: Double) {
        guard let session = sessions[id] else { return }
        if journal == nil {
            remember(opID, seq: seq, for: session.clientKey)
            session.outbox.enqueueAnswer(ServerMessage.ack(id: opID, seq: seq, skipped: skipped))
            metrics.acks += 1
        } else {
            owedAcks.append(OwedAck(seq: seq, session: id, client: session.clientKey, opID: opID, receivedAt: now, skipped: skipped))
            inFlight[session.clientKey, default: [:]][opID] = seq
        }
    }

    func remember(_ opID: String, seq: Int, for client: String) {
        acked[client, default: [:]][opID] = seq
        ackOrder[client, default: []].append(opID)
        if ackOrder[client]!.count > config.rememberedOpsPerClient {
            let dropped = ackOrder[client]!.removeFirst()
            acked[client]![dropped] = nil
        }
    }

    /// Bytes waiting in this room's outboxes.
    public var queuedBytes: Int { sessions.values.reduce(0) { $0 + $1.outbox.queuedBytes } }

    /// The canvas as `GET /v1/canvases/{id}` shows it: the live state, shapes under a gesture included.
    public var snapshotJSON: [UInt8] {
        ServerMessage.canvasDocument(id: canvas.id, seq: canvas.seq, config: canvas.config, shapes: canvas.shapes, sessions: sessions.count)
    }
}
