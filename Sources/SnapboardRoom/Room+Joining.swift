import SnapboardCore
import SnapboardProtocol

/// Sessions joining and leaving, and the welcome that brings a session up to the canvas.
extension Room {
    /// Adds a session and queues its welcome (and, when resuming, the deltas it missed).
    /// `user` is who the session is, from its access token; a client id is then the user's own, so that two
    /// users cannot share (or spoil) each other's exactly-once op ids.
    public func join(session id: Int, address: CanvasAddress, user: String? = nil, canEdit: Bool = true, outbox: Outbox, now: Double) {
        var info = SessionInfo(session: id, name: address.name ?? "guest-\(id)", client: address.client, user: user)
        takeColor(for: &info)
        let session = Session(
            info: info, outbox: outbox, participant: Participant(id: String(id), zoom: address.zoom), canEdit: canEdit,
            presenceChanges: address.revision >= 2, compactLive: address.revision >= 4,
            clientKey: address.client.map { "c:" + (user.map { "\($0.utf8.count):\($0)/" } ?? "") + $0 } ?? "s:\(id)",
            ops: TokenBucket(rate: config.opsPerSecond, now: now), cursors: TokenBucket(rate: config.cursorsPerSecond, now: now),
            pings: TokenBucket(rate: config.pingsPerSecond, now: now), rejects: TokenBucket(rate: config.rejectsPerSecond, now: now))
        sessions[id] = session
        order.append(session)
        outbox.lastDrained = now
        emptySince = nil
        if canResume(since: address.since, epoch: address.epoch), let since = address.since {
            outbox.enqueue(ServerMessage.welcome(
                session: id, snapshot: canvas.committedHeader, shapes: Array("[]".utf8), epoch: epoch.id, sessions: sessionInfos,
                leases: leaseSessions, resumed: true, canEdit: canEdit))
            for seq in (since + 1)..<(canvas.seq + 1) { outbox.enqueue(retainedFrame(at: seq - firstRetainedSeq)) }
            sendLiveState(to: session)
            metrics.resumes += 1
        } else {
            sendWelcome(to: id)
        }
        broadcastPresence(.join, about: info, welcomed: id)
    }

    /// Removes a session; its gestures commit where they were last put (nothing, for one whose shape is
    /// where it was committed: it goes back live).
    public func leave(session id: Int, now: Double) {
        guard let session = sessions.removeValue(forKey: id) else { return }
        releaseColor(of: session.info)
        order.removeAll { $0 === session }
        // The leave tells everyone the cursor is gone; a position still waiting for the tick would revive it.
        if tickCursors.removeValue(forKey: id) != nil { tickCursorOrder.removeAll { $0 == id } }
        // One gesture at a time: each commit is journaled before the next happens, so a checkpoint that
        // one of them triggers holds exactly the commits journaled so far.
        for (shape, owner) in canvas.leaseHolders where owner == session.participant.id {
            held[shape] = nil
            if let outcome = canvas.endGesture(on: shape) { serverEnded(outcome, by: id, now: now) }
        }
        broadcastPresence(.leave, about: session.info)
        if sessions.isEmpty { emptySince = now }
    }

    /// Commits every gesture in progress where it was last put (or puts its shape back live, when that is
    /// where it was committed), telling everyone: the first step of a shutdown.
    public func commitAllGestures(now: Double) {
        for (shape, owner) in canvas.leaseHolders {
            held[shape] = nil
            if let outcome = canvas.endGesture(on: shape) { serverEnded(outcome, by: Int(owner) ?? 0, now: now) }
        }
    }

    /// A fresh welcome in place of everything queued for session `sid`, but for the answers (acks,
    /// rejects) it is waiting for, which follow the welcome (P17).
    func resync(_ sid: Int) {
        guard let outbox = sessions[sid]?.outbox else { return }
        let answers = outbox.reset()
        sendWelcome(to: sid)
        // The welcome holds the session list: a list owed to a 1.1 client would tell it nothing new.
        sessions[sid]?.listedGeneration = presenceLists.generation
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
                                                      sessions: sessionInfos, leases: leaseSessions, resumed: false,
                                                      canEdit: session.canEdit)
        // Its own head and tail count as backpressure; the shapes are the room's, shared by every such welcome.
        session.outbox.enqueue(parts: [Frame(payload: head), welcomeShapes!.json, Frame(payload: tail)], counted: [0, 2])
        sendLiveState(to: session)
    }

    /// The shapes under a gesture as they are now, with the guides and gaps on show: a live delta that
    /// brings a client just welcomed or resumed up to the live canvas.
    func sendLiveState(to session: Session) {
        guard canvas.leaseCount > 0 else { return }
        let dragged = canvas.leaseHolders.compactMap { canvas.shape($0.shape) }
        let marks = snapMarks
        session.outbox.enqueue(ServerMessage.delta(Delta(seq: canvas.seq, by: 0, ops: [], shapes: dragged, guides: marks.guides,
                                                         gaps: marks.gaps, live: true), compact: session.compactLive))
    }
}
