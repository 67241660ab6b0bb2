import SnapboardCore
import SnapboardProtocol

/// Broadcasting commits, the tick's coalesced live deltas, lease expiry and backpressure (presence is in
/// `Room+Presence.swift`).
extension Room {
    // MARK: Broadcasting

    /// Everything a commit does besides changing the canvas: broadcast, journal, checkpoint when due.
    func committed(_ outcome: Outcome, by id: Int, opID: String?, client: String?, step: HistoryStep? = nil, now: Double) {
        broadcastCommitted(outcome, by: id, ops: opID.map { [$0] } ?? [], now: now)
        if let client, let op = outcome.commit { noteHistory(op, seq: outcome.seq, client: client, step: step) }
        guard let journal, let op = outcome.commit else { return }
        if !epochJournaled {
            journal(.epoch(canvas: canvas.id, epoch))
            epochJournaled = true
        }
        // The author's name as others see it now; a commit the server made itself has none.
        let name = client == nil ? nil : sessions[id]?.info.name
        journal(.commit(CommitRecord(canvas: canvas.id, seq: outcome.seq, op: op, client: client, opID: opID, step: step, name: name)))
        lastJournaledSeq = outcome.seq
        commitsSinceCheckpoint += 1
        if commitsSinceCheckpoint >= config.checkpointEvery { checkpoint() }
    }

    /// Sends a committed delta to every session (with haptics only in the actor's copy) and retains it.
    func broadcastCommitted(_ outcome: Outcome, by id: Int, ops: [String], now: Double) {
        let delta = Delta(seq: outcome.seq, by: id, ops: ops, shapes: outcome.changed, removed: outcome.removed,
                          cleared: outcome.cleared, live: false)
        let sharedBytes = ServerMessage.delta(delta)
        let shared = Frame(payload: sharedBytes)
        let haptics = outcome.events.compactMap(\.haptic)
        retain(.frame(shared), seq: outcome.seq)
        for s in order {
            let bytes = s.id == id ? ServerMessage.frame(adding: haptics, to: sharedBytes, shared: shared) : shared
            s.outbox.enqueue(bytes)
            metrics.deltasSent += 1
            metrics.bytesQueued += bytes.count
        }
        // A commit ends what it commits: its shapes no longer need a live update this tick, and the updates
        // it supersedes are listed in no delta (P8).
        var superseded = Set<ShapeID>()
        for shape in outcome.changed where tickShapeSet.remove(shape.id) != nil { superseded.insert(shape.id) }
        for shape in outcome.removed where tickShapeSet.remove(shape) != nil { superseded.insert(shape) }
        if outcome.cleared { superseded.formUnion(tickShapeSet); tickShapeSet.removeAll() }
        if !superseded.isEmpty {
            tickShapes.removeAll { superseded.contains($0) }
            tickOps.removeAll { superseded.contains($0.shape) }
        }
        checkBackpressure(now: now)
    }

    /// Puts `shapes` in the tick's live delta, as changed by session `id` (with op `opID` on `shape`, which a
    /// commit of that shape in the same tick supersedes, P8).
    func showLive(_ shapes: [Shape], opID: String?, shape: ShapeID?, by id: Int) {
        for changed in shapes where tickShapeSet.insert(changed.id).inserted { tickShapes.append(changed.id) }
        if let opID, let shape { tickOps.append((opID, shape)) }
        tickBy = id
    }

    /// A gesture the server ended itself (a disconnect, an expired lease, a shutdown): committed where it was
    /// last put, or, when that is where it was committed, its shape put back live for everyone (P14).
    func serverEnded(_ outcome: Outcome, by id: Int, now: Double) {
        if outcome.commit != nil {
            committed(outcome, by: id, opID: nil, client: nil, now: now)
        } else {
            showLive(outcome.changed, opID: nil, shape: nil, by: id)
        }
    }

    // MARK: Ticks

    /// Sends the coalesced live delta of the last tick and commits gestures whose lease expired.
    public func tick(now: Double) {
        // Most loaded canvases are idle: nothing to expire, relay or send.
        if held.isEmpty, tickCursorOrder.isEmpty, tickShapes.isEmpty, tickHaptics.isEmpty, tickOps.isEmpty, tickUnchanged.isEmpty,
           presenceLists.change == nil { return }
        expireLeases(now: now)
        sendPresenceLists(now: now)
        broadcastCursors()
        guard !tickShapes.isEmpty || !tickHaptics.isEmpty else {
            tickOps.removeAll(keepingCapacity: true)
            answerUnchanged(now: now)
            return
        }
        let shapes = canvas.shapes(tickShapes)
        let marks = snapMarks
        let tickOps = self.tickOps.map(\.id)
        let delta = Delta(seq: canvas.seq, by: tickBy, ops: tickOps, shapes: shapes, guides: marks.guides, gaps: marks.gaps, live: true)
        // Serialised once in each form some session reads: whole shapes, or placements only.
        var forms: (whole: (bytes: [UInt8], frame: Frame)?, compact: (bytes: [UInt8], frame: Frame)?)
        for s in order {
            let haptics = tickHaptics.isEmpty ? [] : tickHaptics[s.id] ?? []
            let outbox = s.outbox
            if outbox.hasUnsentLive {
                // Behind by a tick: merge into its unsent live delta, rebuilt from the current canvas.
                for id in tickShapes where outbox.liveShapeSet.insert(id).inserted { outbox.liveShapes.append(id) }
                outbox.liveOps += tickOps
                outbox.liveHaptics += haptics
                let merged = Delta(seq: canvas.seq, by: tickBy, ops: outbox.liveOps,
                                   shapes: canvas.shapes(outbox.liveShapes), guides: marks.guides,
                                   gaps: marks.gaps, live: true)
                outbox.setLive(Frame(payload: ServerMessage.delta(merged, haptics: outbox.liveHaptics, compact: s.compactLive)))
                metrics.coalesced += 1
            } else {
                let form = (s.compactLive ? forms.compact : forms.whole) ?? {
                    let bytes = ServerMessage.delta(delta, compact: s.compactLive)
                    return (bytes, Frame(payload: bytes))
                }()
                if s.compactLive { forms.compact = form } else { forms.whole = form }
                let (sharedBytes, shared) = form
                let bytes = ServerMessage.frame(adding: haptics, to: sharedBytes, shared: shared)
                outbox.liveShapes = tickShapes
                outbox.liveShapeSet = tickShapeSet
                outbox.liveOps = tickOps
                outbox.liveHaptics = haptics
                outbox.setLive(bytes)
                metrics.deltasSent += 1
                metrics.bytesQueued += bytes.count
            }
        }
        tickShapes.removeAll(keepingCapacity: true)
        tickShapeSet.removeAll(keepingCapacity: true)
        self.tickOps.removeAll(keepingCapacity: true)
        tickHaptics.removeAll(keepingCapacity: true)
        answerUnchanged(now: now)
        checkBackpressure(now: now)
    }

    /// Acks the tick's ops that changed nothing, now that the live delta putting their shapes back is queued
    /// ahead of them.
    func answerUnchanged(now: Double) {
        for op in tickUnchanged {
            acknowledge(op.opID, seq: op.seq, session: op.session, unchanged: true, now: op.receivedAt)
        }
        tickUnchanged.removeAll(keepingCapacity: true)
    }

    /// The tick's pointer positions to everyone but their owners: one shared frame for those who did not
    /// move theirs, and one without its own entry for each who did.
    func broadcastCursors() {
        guard !tickCursorOrder.isEmpty else { return }
        let all = tickCursorOrder.map { (session: $0, at: tickCursors[$0]!) }
        let shared = Frame(payload: ServerMessage.cursors(all))
        for s in order {
            if tickCursors[s.id] == nil {
                s.outbox.enqueue(shared)
            } else if all.count > 1 {
                s.outbox.enqueue(ServerMessage.cursors(all.filter { $0.session != s.id }))
            }
        }
        metrics.cursorsRelayed += all.count
        tickCursors.removeAll(keepingCapacity: true)
        tickCursorOrder.removeAll(keepingCapacity: true)
    }

    /// Commits the gestures whose shapes saw no op for `leaseTimeout`, in shape-id order. Most ticks find
    /// none, and sort nothing.
    func expireLeases(now: Double) {
        let expired = held.compactMap { now - $0.value.seen > config.leaseTimeout ? $0.key : nil }
        for shape in expired.sorted() {
            held[shape] = nil
            let owner = canvas.leaseHolder(of: shape).flatMap { Int($0) } ?? 0
            if let outcome = canvas.endGesture(on: shape) {
                metrics.leaseExpiries += 1
                serverEnded(outcome, by: owner, now: now)
                if let info = sessions[owner]?.info { broadcastPresence(.lease, about: info) }
            }
        }
    }

    /// A session too far behind gets a fresh welcome; one that keeps falling behind is closed with 4000.
    func checkBackpressure(now: Double) {
        for s in order { checkBackpressure(of: s, now: now) }
    }

    /// Session `sid`'s check, if it is still in the room.
    func checkBackpressure(of sid: Int, now: Double) {
        if let s = sessions[sid] { checkBackpressure(of: s, now: now) }
    }

    /// Session `s`, if its queue is past the bound while it takes nothing (or past the hard bound), gets a
    /// fresh welcome; one that keeps falling behind, or whose answers alone are past the bound, is closed
    /// with 4000. A resync keeps the answers, so it cannot bring such a queue back under the bound: the
    /// client asks for more than it reads.
    func checkBackpressure(of s: Session, now: Double) {
        guard s.outbox.close == nil, s.outbox.queuedBytes > config.maxQueuedBytes else { return }
        let stuck = now - s.outbox.lastDrained > config.stuckSeconds
        guard stuck || s.outbox.queuedBytes > config.maxQueuedBytes * config.hardLimitFactor else { return }
        s.resyncTimes = s.resyncTimes.filter { now - $0 < config.resyncWindow } + [now]
        let close = s.resyncTimes.count > config.maxResyncs || s.outbox.answerBytes > config.maxQueuedBytes
        onBackpressure?(s.id, close, s.outbox.queuedBytes)
        if close {
            _ = s.outbox.reset()
            s.outbox.requestClose(code: CloseCode.resume, reason: "too far behind: reconnect with since")
            metrics.slowCloses += 1
        } else {
            resync(s.id)
            metrics.resyncs += 1
        }
    }
}
