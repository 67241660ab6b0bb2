import SnapboardCore

/// Serialises server messages. Each function returns one message's JSON text; the room puts it in a
/// `Frame` once and queues that frame to every recipient.
public enum ServerMessage {
    /// An ack; an undo's or redo's carries the shapes it left alone, with why (P22); one of an op that changed
    /// nothing and committed nothing says `"unchanged":true`, with the canvas's current seq (P6).
    public static func ack(id: String, seq: Int, skipped: [(shape: ShapeID, code: Rejection.Code)] = [], unchanged: Bool = false) -> [UInt8] {
        var w = JSONWriter(reserving: 64 + skipped.count * 48)
        w.beginObject()
        w.string("type", "ack")
        w.string("id", id)
        w.number("seq", seq)
        if unchanged { w.bool("unchanged", true) }
        if !skipped.isEmpty {
            w.beginArray("skipped")
            for s in skipped {
                w.beginObject()
                w.string("shape", s.shape)
                w.string("code", s.code.rawValue)
                w.endObject()
            }
            w.endArray()
        }
        w.endObject()
        return w.bytes
    }

    /// A refused op: its id, the stable code, and a message for people.
    public static func reject(id: String, code: RejectCode, message: String) -> [UInt8] {
        var w = JSONWriter(reserving: 128)
        w.beginObject()
        w.string("type", "reject")
        w.string("id", id)
        w.string("code", code.rawValue)
        w.string("message", message)
        w.endObject()
        return w.bytes
    }

    public static func error(_ e: ProtocolError) -> [UInt8] {
        var w = JSONWriter(reserving: 128)
        w.beginObject()
        w.string("type", "error")
        w.string("code", e.code.rawValue)
        w.string("message", e.message)
        if let id = e.id { w.string("id", id) }
        w.endObject()
        return w.bytes
    }

    public static func pong(t: JSONValue?) -> [UInt8] {
        var w = JSONWriter(reserving: 48)
        w.beginObject()
        w.string("type", "pong")
        if let t, case .number(let v) = t { w.number("t", v) } else if let t, case .string(let s) = t { w.string("t", s) }
        w.endObject()
        return w.bytes
    }

    /// `sessions` is the full list after a join or leave, and nil for
    /// a lease change, which does not change it: in a room of N people every lease change goes to all N,
    /// so carrying N sessions each time would make it O(N²) bytes.
    public static func presence(event: PresenceEvent, session: SessionInfo, sessions: [SessionInfo]?, leases: [(shape: ShapeID, session: Int)]) -> [UInt8] {
        var w = JSONWriter(reserving: 128 + (sessions?.count ?? 0) * 48 + leases.count * 24)
        w.beginObject()
        w.string("type", "presence")
        w.string("event", event.rawValue)
        w.number("session", session.session)
        w.string("name", session.name)
        if let user = session.user { w.string("user", user) }
        w.string("color", session.color)
        if let sessions { writeSessions(&w, sessions) }
        writeLeases(&w, leases)
        w.endObject()
        return w.bytes
    }

    /// Pointer positions of other sessions, coalesced over a tick (P20); nil: that pointer left the canvas.
    public static func cursors(_ cursors: [(session: Int, at: Point?)]) -> [UInt8] {
        var w = JSONWriter(reserving: 32 + cursors.count * 48)
        w.beginObject()
        w.string("type", "cursors")
        w.beginArray("cursors")
        for cursor in cursors {
            w.beginObject()
            w.number("session", cursor.session)
            if let at = cursor.at {
                w.number("x", at.x)
                w.number("y", at.y)
            }
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }

    static func writeSessions(_ w: inout JSONWriter, _ sessions: [SessionInfo]) {
        w.beginArray("sessions")
        for s in sessions {
            w.beginObject()
            w.number("session", s.session)
            w.string("name", s.name)
            if let user = s.user { w.string("user", user) }
            w.string("color", s.color)
            w.endObject()
        }
        w.endArray()
    }

    /// `leases` in the order given: the room lists them in shape order.
    static func writeLeases(_ w: inout JSONWriter, _ leases: [(shape: ShapeID, session: Int)]) {
        w.beginObject("leases")
        for (shape, session) in leases {
            w.number(key: shape, session)
        }
        w.endObject()
    }
}
