import SnapboardCore

/// The welcome a session gets when it joins, resumes or is resynced.
extension ServerMessage {
    /// `canEdit` is the session's effective role: `"role":"editor"`, else `"viewer"` (P3).
    public static func welcome(
        session: Int, snapshot: CanvasSnapshot, epoch: String, sessions: [SessionInfo], leases: [(shape: ShapeID, session: Int)], resumed: Bool,
        canEdit: Bool
    ) -> [UInt8] {
        welcome(session: session, snapshot: snapshot, shapes: resumed ? Array("[]".utf8) : shapeArray(snapshot.shapes),
                epoch: epoch, sessions: sessions, leases: leases, resumed: resumed, canEdit: canEdit)
    }

    /// A welcome whose `shapes` are already serialised (`shapeArray`): a room serialises its canvas once
    /// for every joiner until it changes. `snapshot.shapes` is not read.
    public static func welcome(
        session: Int, snapshot: CanvasSnapshot, shapes: [UInt8], epoch: String, sessions: [SessionInfo], leases: [(shape: ShapeID, session: Int)],
        resumed: Bool, canEdit: Bool
    ) -> [UInt8] {
        let (head, tail) = welcomeAround(session: session, snapshot: snapshot, epoch: epoch, sessions: sessions, leases: leases,
                                         resumed: resumed, canEdit: canEdit)
        return head + shapes + tail
    }

    /// A welcome without its `shapes`: the bytes before them and the bytes after. A room queues these with
    /// its canvas's shared `shapeArray` between them, so many joiners hold one copy of a big canvas.
    public static func welcomeAround(
        session: Int, snapshot: CanvasSnapshot, epoch: String, sessions: [SessionInfo], leases: [(shape: ShapeID, session: Int)], resumed: Bool,
        canEdit: Bool
    ) -> (head: [UInt8], tail: [UInt8]) {
        var w = JSONWriter(reserving: 256 + sessions.count * 48)
        w.beginObject()
        w.string("type", "welcome")
        w.number("protocol", ClientMessage.protocolVersion)
        w.number("revision", ClientMessage.protocolRevision)
        w.number("session", session)
        w.string("canvas", snapshot.id)
        w.number("seq", snapshot.seq)
        w.string("epoch", epoch)
        w.bool("resumed", resumed)
        w.string("role", canEdit ? "editor" : "viewer")
        writeGrid(&w, snapshot.config)
        w.bool("bounded", snapshot.config.bounded)
        writeSnapping(&w, snapshot.config.snapping)
        writeLayout(&w, snapshot.config)
        w.raw("shapes", [])
        let cut = w.count
        writeSessions(&w, sessions)
        writeLeases(&w, leases)
        w.endObject()
        return (Array(w.bytes[..<cut]), Array(w.bytes[cut...]))
    }

    /// `shapes` as a JSON array, in the order given.
    public static func shapeArray(_ shapes: [Shape]) -> [UInt8] {
        var w = JSONWriter(reserving: 2 + shapes.count * 160)
        w.beginArray()
        for shape in shapes { writeShape(&w, shape) }
        w.endArray()
        return w.bytes
    }
}
