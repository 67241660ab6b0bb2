import SnapboardCore

/// A session as others see it.
public struct SessionInfo: Hashable, Sendable {
    public var session: Int
    public var name: String
    public var client: String?
    /// Who the session is, from its access token's `sub`, on a server that requires tokens (1.2).
    public var user: String?

    public init(session: Int, name: String, client: String?, user: String? = nil) {
        (self.session, self.name, self.client, self.user) = (session, name, client, user)
    }

    /// The colour others draw this session in (its cursor, its leases), as `#rrggbb`: a hue from a hash of
    /// the user, else the client id, so a person keeps their colour across reconnects, or of the session
    /// when it gave neither.
    /// Saturation and brightness are fixed, so every colour reads on white.
    public var color: String {
        let hash = SeededGenerator.fnv1a((user.map { "u:" + $0 } ?? client.map { "c:" + $0 } ?? "s:\(session)").utf8)
        let rgb = HSBColor(h: Double(hash % 360) / 360, s: 0.75, b: 0.8, a: 1).rgb
        let hex = String(rgb, radix: 16)
        return "#" + String(repeating: "0", count: 6 - hex.count) + hex
    }
}

/// One broadcast of what changed on a canvas.
public struct Delta: Hashable, Sendable {
    /// The canvas seq after the change: the committed op's number, or the current seq for a live delta.
    public var seq: Int
    /// The session that caused the change; for a coalesced live delta, the last one that did.
    public var by: Int
    /// Every op id the delta covers.
    public var ops: [String]
    public var shapes: [Shape]
    public var removed: [ShapeID] = []
    public var cleared = false
    public var guides: [Guide] = []
    /// Equal spacing shown while gap snaps hold (1.1).
    public var gaps: [GapGuide] = []
    /// True for in-gesture updates, which do not advance seq.
    public var live: Bool

    public init(seq: Int, by: Int, ops: [String], shapes: [Shape], removed: [ShapeID] = [], cleared: Bool = false,
                guides: [Guide] = [], gaps: [GapGuide] = [], live: Bool) {
        (self.seq, self.by, self.ops, self.shapes, self.removed, self.cleared, self.guides, self.gaps, self.live) =
            (seq, by, ops, shapes, removed, cleared, guides, gaps, live)
    }
}

/// Serialises server messages. Each function returns one message's JSON text; the room puts it in a
/// `Frame` once and queues that frame to every recipient.
public enum ServerMessage {
    public static func welcome(
        session: Int, snapshot: CanvasSnapshot, epoch: String, sessions: [SessionInfo], leases: [ShapeID: Int], resumed: Bool
    ) -> [UInt8] {
        welcome(session: session, snapshot: snapshot, shapes: resumed ? Array("[]".utf8) : shapeArray(snapshot.shapes),
                epoch: epoch, sessions: sessions, leases: leases, resumed: resumed)
    }

    /// A welcome whose `shapes` are already serialised (`shapeArray`): a room serialises its canvas once
    /// for every joiner until it changes. `snapshot.shapes` is not read.
    public static func welcome(
        session: Int, snapshot: CanvasSnapshot, shapes: [UInt8], epoch: String, sessions: [SessionInfo], leases: [ShapeID: Int],
        resumed: Bool
    ) -> [UInt8] {
        let (head, tail) = welcomeAround(session: session, snapshot: snapshot, epoch: epoch, sessions: sessions, leases: leases,
                                         resumed: resumed)
        return head + shapes + tail
    }

    /// A welcome without its `shapes`: the bytes before them and the bytes after. A room queues these with
    /// its canvas's shared `shapeArray` between them, so many joiners hold one copy of a big canvas.
    public static func welcomeAround(
        session: Int, snapshot: CanvasSnapshot, epoch: String, sessions: [SessionInfo], leases: [ShapeID: Int], resumed: Bool
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
        writeGrid(&w, snapshot.config)
        writeSnapping(&w, snapshot.config.snapping)
        writeLayout(&w, snapshot.config)
        w.raw("shapes", [])
        let cut = w.bytes.count
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

    /// An ack; an undo's or redo's carries the shapes it left alone, with why (P22).
    public static func ack(id: String, seq: Int, skipped: [(shape: ShapeID, code: Rejection.Code)] = []) -> [UInt8] {
        var w = JSONWriter(reserving: 64 + skipped.count * 48)
        w.beginObject()
        w.string("type", "ack")
        w.string("id", id)
        w.number("seq", seq)
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
    public static func presence(event: PresenceEvent, session: SessionInfo, sessions: [SessionInfo]?, leases: [ShapeID: Int]) -> [UInt8] {
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

    /// A delta; `haptics` are added only to the copy for the session that caused them.
    public static func delta(_ d: Delta, haptics: [Haptic] = [], compact: Bool = false) -> [UInt8] {
        adding(haptics, to: delta(d, compact: compact))
    }

    /// The shared copy of a delta, which every session but the ones with haptics gets. `compact` (1.4, for
    /// clients that asked with `revision=4`) writes a live delta's shapes as `placed`, their placement only:
    /// `[id, x, y, w, h, scale, rotation, z]` each, since a gesture changes nothing else (P8).
    private static func delta(_ d: Delta, compact: Bool) -> [UInt8] {
        var w = JSONWriter(reserving: 128 + d.shapes.count * (compact && d.live ? 64 : 160))
        w.beginObject()
        w.string("type", "delta")
        w.number("seq", d.seq)
        w.number("by", d.by)
        w.beginArray("ops")
        for op in d.ops { w.string(op) }
        w.endArray()
        if compact && d.live {
            w.beginArray("placed")
            for s in d.shapes {
                w.beginArray()
                w.string(s.id)
                w.number(s.center.x)
                w.number(s.center.y)
                w.number(s.size.width)
                w.number(s.size.height)
                w.number(s.scale)
                w.number(s.rotation)
                w.number(s.z)
                w.endArray()
            }
            w.endArray()
        } else {
            w.beginArray("shapes")
            for shape in d.shapes { writeShape(&w, shape) }
            w.endArray()
            w.beginArray("removed")
            for id in d.removed { w.string(id) }
            w.endArray()
            w.bool("cleared", d.cleared)
        }
        w.beginArray("events")
        for g in d.guides {
            w.beginObject()
            w.string("type", "guide")
            w.string("axis", g.axis.rawValue)
            w.number("at", g.at)
            w.number("from", g.from)
            w.number("to", g.to)
            w.string("target", g.target.wireValue)
            w.endObject()
        }
        for g in d.gaps {
            w.beginObject()
            w.string("type", "gap")
            w.string("axis", g.axis.rawValue)
            w.number("gap", g.gap)
            w.beginArray("segments")
            for s in g.segments {
                w.beginArray()
                w.number(s.from)
                w.number(s.to)
                w.number(s.at)
                w.endArray()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.bool("live", d.live)
        w.endObject()
        return w.bytes
    }

    /// The copy of an already serialised delta (`delta(_:)`) for the session that caused `haptics`: the
    /// shared bytes up to the end of `events`, the haptics, and the rest. A tick's delta is serialised
    /// once however many draggers felt a snap in it.
    public static func adding(_ haptics: [Haptic], to shared: [UInt8]) -> [UInt8] {
        // The shared copy ends with `…],"live":true}` or `…],"live":false}`: the last `]` closes `events`.
        guard !haptics.isEmpty, let close = shared.lastIndex(of: UInt8(ascii: "]")) else { return shared }
        var w = JSONWriter(reserving: haptics.count * 56)
        w.beginArray()
        for h in haptics {
            w.beginObject()
            w.string("type", "haptic")
            w.string("style", h.style)
            w.string("reason", h.reason.rawValue)
            w.endObject()
        }
        w.endArray()
        var out = [UInt8]()
        out.reserveCapacity(shared.count + w.bytes.count)
        out.append(contentsOf: shared[..<close])
        if shared[close - 1] != UInt8(ascii: "[") { out.append(UInt8(ascii: ",")) }
        // The array's elements, without its brackets, continue the shared events array.
        out.append(contentsOf: w.bytes.dropFirst().dropLast())
        out.append(contentsOf: shared[close...])
        return out
    }

    /// A shape in its flat wire form (the same as `Shape`'s `Codable` form).
    public static func writeShape(_ w: inout JSONWriter, _ s: Shape) {
        w.beginObject()
        w.string("id", s.id)
        w.string("kind", s.kind.name)
        w.number("x", s.center.x)
        w.number("y", s.center.y)
        w.number("w", s.size.width)
        w.number("h", s.size.height)
        w.number("scale", s.scale)
        w.number("rotation", s.rotation)
        w.beginObject("fill")
        w.number("h", s.fill.h)
        w.number("s", s.fill.s)
        w.number("b", s.fill.b)
        w.number("a", s.fill.a)
        w.endObject()
        w.string("hatch", s.hatch.rawValue)
        w.number("z", s.z)
        switch s.kind {
        case .polygon(let sides): w.number("sides", sides)
        case .star(let points, let inner):
            w.number("points", points)
            w.number("inner", inner)
        case .fractal(let depth): w.number("depth", depth)
        case .dot, .roundedRect, .oval, .triangle: break
        }
        w.endObject()
    }

    static func writeGrid(_ w: inout JSONWriter, _ c: CanvasConfig) {
        w.beginObject("grid")
        w.number("width", c.width)
        w.number("height", c.height)
        for (key, spacing) in [("x", c.gridX), ("y", c.gridY)] {
            if key == "x" { w.beginObject("x") } else { w.beginObject("y") }
            switch spacing {
            case .divisions(let n): w.number("divisions", n)
            case .pitch(let p): w.number("pitch", p)
            }
            w.endObject()
        }
        w.endObject()
    }

    /// The canvas's layout grid (seed 002), when it has one (1.3): how it is sized, the rows and columns that
    /// result, the padding (margin and gap) and one cell's size, so a client can draw the cells.
    static func writeLayout(_ w: inout JSONWriter, _ c: CanvasConfig) {
        guard let layout = c.layoutGrid else { return }
        w.beginObject("layout")
        switch layout.sizing {
        case .flexible: w.string("mode", "flexible")
        case .squareFromRows: w.string("mode", "squareFromRows")
        case .squareFromColumns: w.string("mode", "squareFromColumns")
        }
        w.number("rows", layout.rows)
        w.number("columns", layout.columns)
        w.number("padding", layout.padding)
        w.number("cellWidth", layout.cellSize.width)
        w.number("cellHeight", layout.cellSize.height)
        w.endObject()
    }

    /// A canvas as HTTP returns it: `{"canvas","seq","grid","snapping","layout"?,"shapes","sessions"}`, with
    /// `sessions` the number connected (0 for a past state).
    public static func canvasDocument(id: String, seq: Int, config: CanvasConfig, shapes: some Collection<Shape>, sessions: Int) -> [UInt8] {
        var w = JSONWriter(reserving: 384 + shapes.count * 160)
        w.beginObject()
        w.string("canvas", id)
        w.number("seq", seq)
        writeGrid(&w, config)
        writeSnapping(&w, config.snapping)
        writeLayout(&w, config)
        w.number("maxShapes", config.maxShapes)
        w.beginArray("shapes")
        for shape in shapes { writeShape(&w, shape) }
        w.endArray()
        w.number("sessions", sessions)
        w.endObject()
        return w.bytes
    }

    static func writeSnapping(_ w: inout JSONWriter, _ s: SnapSettings) {
        w.beginObject("snapping")
        w.number("threshold", s.threshold)
        w.number("release", s.threshold + s.releaseMargin)
        w.bool("objects", s.objects)
        w.bool("grid", s.grid)
        w.bool("gaps", s.gaps)
        w.number("angleStep", s.angleStep)
        w.number("angleTolerance", s.angleTolerance)
        w.endObject()
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

    static func writeLeases(_ w: inout JSONWriter, _ leases: [ShapeID: Int]) {
        w.beginObject("leases")
        for (shape, session) in leases.sorted(by: { $0.key < $1.key }) {
            w.number(key: shape, session)
        }
        w.endObject()
    }
}
