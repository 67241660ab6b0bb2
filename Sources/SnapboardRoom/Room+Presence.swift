import SnapboardCore
import SnapboardProtocol

/// Presence (P11): joins, leaves and lease changes as changes, at once, to clients of revision 2 and
/// later; the whole session list, coalesced, to 1.1 clients.
extension Room {
    /// Where the session list stands for 1.1 clients, which get it whole on joins and leaves (P11).
    struct PresenceLists {
        /// Counts the joins and leaves so far: a session holds the list as of its `listedGeneration`.
        var generation = 0
        /// The last join or leave not yet sent in a list: the subject of the next one.
        var change: (event: PresenceEvent, about: SessionInfo)?
        /// The earliest time the next list may go: each list holds the next back for as long as its bytes
        /// take at `RoomConfig.presenceListBytesPerSecond`.
        var nextAt = -Double.infinity
    }

    /// Tells everyone of a join, a leave or a lease change: one frame for all, the change alone, at once. A
    /// join or leave reaches 1.0 and 1.1 clients later, as a session list at the next tick that may send
    /// one (`sendPresenceLists`). `welcomed` is a session that joined with the list in its welcome.
    func broadcastPresence(_ event: PresenceEvent, about info: SessionInfo, welcomed: Int? = nil) {
        let change = Frame(payload: ServerMessage.presence(event: event, session: info, sessions: nil, leases: leaseSessions))
        for session in order where session.id != welcomed {
            guard event == .lease || session.presenceChanges else { continue }
            session.outbox.enqueue(change)
            metrics.presenceBytes += change.count
        }
        guard event != .lease else { return }
        presenceLists.generation += 1
        presenceLists.change = (event, info)
        if let welcomed { sessions[welcomed]?.listedGeneration = presenceLists.generation }
    }

    /// Sends the session list to every 1.1 client that has not seen the latest join or leave, once the
    /// last list's bytes allow (so at most one list per client per tick, and a client's lists take at most
    /// `presenceListBytesPerSecond` however large the room). The list is serialised once for all of them,
    /// with the leases as they are now; its `event`, `session` and `name` are the last change's.
    func sendPresenceLists(now: Double) {
        guard let change = presenceLists.change, now >= presenceLists.nextAt else { return }
        presenceLists.change = nil
        let generation = presenceLists.generation
        var list: Frame?
        for session in order {
            guard !session.presenceChanges, session.listedGeneration < generation else { continue }
            let frame = list ?? Frame(payload: ServerMessage.presence(event: change.event, session: change.about, sessions: sessionInfos,
                                                                      leases: leaseSessions))
            list = frame
            session.outbox.enqueue(frame)
            session.listedGeneration = generation
            metrics.presenceBytes += frame.count
        }
        if let list { presenceLists.nextAt = now + Double(list.count) / config.presenceListBytesPerSecond }
    }
}
