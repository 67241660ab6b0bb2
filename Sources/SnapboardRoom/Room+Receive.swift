import SnapboardCore
import SnapboardProtocol

/// Messages from sessions: ops checked, applied and answered; cursors; invalid frames.
extension Room {
    /// Handles one decoded message from a session. A session the room is closing is no longer listened to.
    public func receive(_ message: ClientMessage, from id: Int, now: Double) {
        guard let session = sessions[id], session.outbox.close == nil else { return }
        // Every answer counts toward the session's send budget, as deltas do (P17).
        defer { checkBackpressure(of: session, now: now) }
        switch message {
        case .ping(let t):
            session.outbox.enqueueAnswer(ServerMessage.pong(t: t))
            spend(\.pings, of: id, now: now)
        case .cursor(let at):
            moveCursor(of: id, to: at, now: now)
        case .view(let zoom):
            // The next op resolves snapping with the new zoom; a gesture in progress keeps its lease.
            sessions[id]?.participant.zoom = zoom
        case .op(let opID, let op):
            metrics.count(op: op)
            if op.commits, let known = acked[session.clientKey]?[opID] {
                // Exactly once: a resent op that already committed gets its original ack, and nothing else happens.
                // Not counted against the refusal budget: after a reconnect a client resends its whole pending
                // window at once (P15), and a client that does not read these acks is closed by its send budget.
                // One that changed nothing gets its unchanged ack again, once that seq is durable: applied
                // afresh, it could change the canvas after ops the client sent later (P15).
                metrics.duplicateOps += 1
                guard known.unchanged else {
                    session.outbox.enqueueAnswer(ServerMessage.ack(id: opID, seq: known.seq))
                    return
                }
                acknowledge(opID, seq: known.seq, session: id, unchanged: true, now: now)
                return
            }
            if op.commits, let seq = inFlight[session.clientKey]?[opID] {
                // Committed but not durable yet: this session gets the ack when it is.
                owedAcks.append(OwedAck(seq: seq, session: id, client: session.clientKey, opID: opID, receivedAt: now))
                metrics.duplicateOps += 1
                return
            }
            guard session.canEdit else {
                reject(opID, code: .forbidden, "this session may only watch", to: session, now: now)
                return
            }
            guard !isRecovering else {
                reject(opID, code: .unavailable, "storage is failing; the canvas is being restored", to: session, now: now)
                return
            }
            let cost = Self.cost(of: op)
            guard cost == 0 || session.ops.take(cost, now: now) else {
                reject(opID, code: .rateLimited, "more than \(Int(config.opsPerSecond)) ops per second (an op costs one per shape it names)",
                       to: session, now: now)
                return
            }
            if cost > 0, let admitOp, let refusal = admitOp(id, cost, now) {
                reject(opID, code: .rateLimited, refusal, to: session, now: now)
                return
            }
            apply(op, id: opID, from: session, now: now)
        }
    }

    /// What an op takes from the rate limits (P10): one token per shape it names, since that is what it costs
    /// the room. A gesture's `end` takes none and is never refused for rate: its `begin` paid for its shapes,
    /// and a gesture that could not end would hold its shapes until its lease lapsed.
    static func cost(of op: CanvasOp) -> Double {
        op.phase == .end ? 0 : Double(op.shapesNamed)
    }

    /// Keeps the latest pointer position of a session for the next tick, within its cursor budget.
    func moveCursor(of id: Int, to at: Point?, now: Double) {
        guard let session = sessions[id] else { return }
        guard session.cursors.take(now: now) else {
            if !session.cursorWarned {
                session.cursorWarned = true
                session.outbox.enqueueAnswer(ServerMessage.error(ProtocolError(
                    .rateLimited, "more than \(Int(config.cursorsPerSecond)) cursor messages per second: extra ones are dropped")))
            }
            metrics.cursorsDropped += 1
            return
        }
        session.cursorWarned = false
        if tickCursors.updateValue(at, forKey: id) == nil { tickCursorOrder.append(id) }
    }

    /// Answers a frame that was not a valid message; closes a session that keeps sending them.
    public func receiveInvalid(_ error: ProtocolError, from id: Int, now: Double) {
        guard let session = sessions[id], session.outbox.close == nil else { return }
        defer { checkBackpressure(of: id, now: now) }
        metrics.errors[error.code.rawValue, default: 0] += 1
        session.outbox.enqueueAnswer(ServerMessage.error(error))
        if error.code == .tooLarge {
            session.outbox.requestClose(code: CloseCode.messageTooBig, reason: "message too large")
        }
        countError(of: id, now: now)
    }

    /// One more error of session `id`: more than `maxErrors` within ten seconds closes it with 1008 (P10).
    func countError(of id: Int, now: Double) {
        guard let session = sessions[id] else { return }
        session.errorTimes = session.errorTimes.filter { now - $0 < 10 } + [now]
        if session.errorTimes.count > config.maxErrors {
            session.outbox.requestClose(code: CloseCode.policyViolation, reason: "too many invalid messages")
        }
    }

    /// Spends one token of a session's answer budget (`pings`, `rejects`): an answer beyond it is still
    /// sent, but counts as an error, so a client that keeps asking for answers it does not need is closed.
    func spend(_ budget: ReferenceWritableKeyPath<Session, TokenBucket>, of id: Int, now: Double) {
        guard let session = sessions[id] else { return }
        let within = session[keyPath: budget].take(now: now)
        if !within { countError(of: id, now: now) }
    }

    /// Refuses op `opID` of `session`. With `now`, the refusal answers the session's own op and spends its
    /// budget of refusals; without, the server refuses on its own account (a failed write).
    func reject(_ opID: String, code: RejectCode, _ message: String, to session: Session, now: Double? = nil) {
        metrics.rejects[code.rawValue, default: 0] += 1
        session.outbox.enqueueAnswer(ServerMessage.reject(id: opID, code: code, message: message))
        if let now { spend(\.rejects, of: session.info.session, now: now) }
    }

    /// A snap or a connect with the style fields it leaves out taken from the author's last style (1.7, P26,
    /// P28); a fill given as hue, saturation and brightness is kept as given.
    func withLastStyle(_ op: CanvasOp, of session: Session) -> CanvasOp {
        guard !session.lastStyle.isEmpty else { return op }
        func styled(_ spec: ShapeSpec) -> ShapeSpec {
            var spec = spec, fallback = session.lastStyle
            if spec.fill != nil { fallback.fill = nil }
            spec.style = spec.style.over(fallback)
            return spec
        }
        switch op {
        case .snap(let at, let shapeID, let spec): return .snap(at: at, shapeID: shapeID, spec: styled(spec))
        case .connect(let shapeID, let spec, let from, let to): return .connect(shapeID: shapeID, spec: styled(spec), from: from, to: to)
        default: return op
        }
    }

    /// Remembers the style an accepted `style` op or snap set, for the session's next snaps.
    func rememberStyle(of op: CanvasOp, for id: Int) {
        let patch: StylePatch
        switch op {
        case .style(_, let p): patch = p
        case .snap(_, _, let spec), .connect(_, let spec, _, _): patch = spec.style
        default: return
        }
        guard let last = sessions[id]?.lastStyle else { return }
        sessions[id]?.lastStyle = patch.over(last)
    }

    /// Applies op `opID` of `session`, which passed its checks: an undo or a redo through its history, a snap
    /// or a connect with its last style, anything else as it came.
    func apply(_ op: CanvasOp, id opID: String, from session: Session, now: Double) {
        switch op {
        case .undo: stepHistory(opID, redo: false, from: session.id, now: now)
        case .redo: stepHistory(opID, redo: true, from: session.id, now: now)
        case .snap, .connect: applyStyled(withLastStyle(op, of: session), id: opID, from: session, now: now)
        // The op as it came, not a copy of it (a drag's every step).
        default: applyStyled(op, id: opID, from: session, now: now)
        }
    }

    /// `apply` once the op has its author's last style.
    private func applyStyled(_ op: CanvasOp, id opID: String, from session: Session, now: Double) {
        let id = session.id
        let leasesBefore = canvas.leaseVersion
        let outcome: Outcome
        do {
            outcome = try canvas.apply(op, by: session.participant)
        } catch {
            reject(opID, code: .canvas(error.code), error.message, to: session, now: now)
            return
        }
        rememberStyle(of: op, for: id)
        if outcome.commit != nil {
            op.forEachGestureShape { held[$0] = nil }
            if outcome.cleared { held.removeAll() }
            for shape in outcome.removed { held[shape] = nil }
            committed(outcome, by: id, opID: opID, client: session.clientKey, now: now)
            acknowledge(opID, seq: outcome.seq, session: id, now: now)
        } else if case .text = op, let shape = op.shapeID, !outcome.unchanged {
            // A text edit's begin or update holds the lease; the draft is not shown until it commits (P26).
            held[shape, default: HeldShape(seen: now, marks: [])].seen = now
        } else if let shape = op.leadGestureShape {
            // A gesture goes on live; one that ended where it was committed (`unchanged`) is over, and its
            // shape goes back live too, to everyone: nothing commits, and the sender is acked (P6, P14). A
            // selection gesture (P29) holds every shape's lease; its guides are kept with its first shape.
            if outcome.unchanged {
                op.forEachGestureShape { held[$0] = nil }
            } else {
                // Most updates engage no snap: their events are the marks as they are, with no copy.
                let engaged = outcome.events.contains { $0.haptic != nil }
                let marks = engaged ? outcome.events.filter { $0.haptic == nil } : outcome.events
                op.forEachGestureShape { held[$0] = HeldShape(seen: now, marks: $0 == shape ? marks : []) }
            }
            showLive(outcome.changed, opID: opID, shape: shape, by: id)
            let haptics = outcome.events.compactMap(\.haptic)
            if !haptics.isEmpty { tickHaptics[id, default: []] += haptics }
            if outcome.unchanged {
                tickUnchanged.append((id, opID, outcome.seq, now))
                rememberUnchanged(opID, seq: outcome.seq, for: session.clientKey)
            }
        } else if outcome.unchanged {
            // An order or lock that would change nothing (1.6): no delta, an unchanged ack (P6, P14).
            tickUnchanged.append((id, opID, outcome.seq, now))
            rememberUnchanged(opID, seq: outcome.seq, for: session.clientKey)
        }
        if canvas.leaseVersion != leasesBefore { broadcastPresence(.lease, about: session.info) }
    }
}
