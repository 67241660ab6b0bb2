import SnapboardCore

/// A message from a client, decoded and checked for shape (types and required fields). Whether an op
/// can be applied is the canvas's decision.
public enum ClientMessage: Hashable, Sendable {
    /// An operation with its client-chosen id (unique per client, at most 64 characters).
    case op(id: String, CanvasOp)
    /// A liveness probe; `t` is echoed in the `pong`.
    case ping(t: JSONValue?)
    /// Where the client's pointer is, in canvas units, or nil when it left the canvas (P20).
    case cursor(Point?)
    /// The client's zoom changed: snapping thresholds follow it from the next op (P21).
    case view(zoom: Double)

    /// The protocol version this server speaks.
    public static let protocolVersion = 1
    /// The revision of that version: revisions only add messages, fields and ops, so a client written for
    /// 1.0 works with 1.1 (PROTOCOL.md, "Revisions").
    public static let protocolRevision = 7

    /// Decodes one text frame.
    public static func decode(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> ClientMessage {
        if let gesture = bytes.withContiguousStorageIfAvailable(GestureScanner.decode), let gesture { return gesture }
        return try decodeStrictly(bytes)
    }

    /// Decodes one text frame as the server receives it: `decode` without a generic call per message.
    public static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> ClientMessage {
        if let gesture = bytes.withUnsafeBufferPointer(GestureScanner.decode) { return gesture }
        return try decodeStrictly(bytes)
    }

    /// `decode` without the gesture fast path: every message through the strict parser.
    public static func decodeStrictly(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> ClientMessage {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw ProtocolError(.badJSON, "not JSON: \(error.reason) at byte \(error.offset)")
        }
        guard case .object = json else { throw ProtocolError(.badMessage, "a message is a JSON object") }
        guard case .string(let type)? = json["type"] else { throw ProtocolError(.badMessage, "'type' must be a string") }
        switch type {
        case "ping": return .ping(t: json["t"])
        case "op": return try decodeOp(json)
        case "cursor": return try decodeCursor(json)
        case "view":
            guard case .number(let zoom)? = json["zoom"], zoom.isFinite, zoomRange.contains(zoom) else {
                throw ProtocolError(.badMessage, "'zoom' must be a number in 0.01–100")
            }
            return .view(zoom: zoom)
        default: throw ProtocolError(.unknownType, "unknown message type '\(type.prefix(32))'")
        }
    }

    /// The zooms a client may declare, at connect (`zoom=`) or with `view`.
    public static let zoomRange = 0.01...100.0

    /// `{"type":"cursor","x":X,"y":Y}`, or without (or with null) `x` and `y` when the pointer left.
    private static func decodeCursor(_ json: JSONValue) throws(ProtocolError) -> ClientMessage {
        let fields = Fields(json: json, id: nil)
        let x = try fields.optionalNumber("x"), y = try fields.optionalNumber("y")
        guard let x, let y else {
            guard x == nil, y == nil else { throw ProtocolError(.badMessage, "'x' and 'y' come together") }
            return .cursor(nil)
        }
        // A cursor has no op id to reject, so a position no canvas can have is a bad message.
        guard x.isFinite, y.isFinite, abs(x) <= 1e9, abs(y) <= 1e9 else {
            throw ProtocolError(.badMessage, "'x' and 'y' must be finite, at most 1e9 in size")
        }
        return .cursor(Point(x: x, y: y))
    }

    private static func decodeOp(_ json: JSONValue) throws(ProtocolError) -> ClientMessage {
        guard case .string(let id)? = json["id"], !id.isEmpty, id.count <= 64 else {
            throw ProtocolError(.badMessage, "'id' must be a string of 1–64 characters")
        }
        let fields = Fields(json: json, id: id)
        guard case .string(let kind)? = json["op"] else { throw ProtocolError(.badMessage, "'op' must be a string", id: id) }
        let op: CanvasOp
        switch kind {
        case "snap":
            let at = Point(x: try fields.number("x"), y: try fields.number("y"))
            let shapeID = try fields.optionalString("shapeId")
            let spec = try fields.optionalObject("shape").map { (value) throws(ProtocolError) in try shapeSpec(value, id: id) }
            op = .snap(at: at, shapeID: shapeID, spec: spec ?? ShapeSpec())
        case "move":
            let t = Point(x: try fields.number("dx", default: 0), y: try fields.number("dy", default: 0))
            let snap = try fields.optionalBool("snap") ?? true
            if let ids = try fields.selection() {
                op = .moveMany(ids, phase: try fields.phase(), translation: t, snap: snap)
            } else {
                op = .move(try fields.string("shape"), phase: try fields.phase(), translation: t, snap: snap)
            }
        case "scale":
            let ax = try fields.optionalNumber("ax"), ay = try fields.optionalNumber("ay")
            guard (ax == nil) == (ay == nil) else { throw ProtocolError(.badMessage, "'ax' and 'ay' come together", id: id) }
            let factor = try fields.number("factor", default: 1), radians = try fields.number("radians", default: 0)
            if let ids = try fields.selection() {
                op = .scaleMany(ids, phase: try fields.phase(), factor: factor, anchor: ax.map { Point(x: $0, y: ay!) }, radians: radians)
            } else {
                op = .scale(try fields.string("shape"), phase: try fields.phase(), factor: factor, anchor: ax.map { Point(x: $0, y: ay!) },
                            radians: radians)
            }
        case "rotate":
            let radians = try fields.number("radians", default: 0)
            if let ids = try fields.selection() {
                op = .rotateMany(ids, phase: try fields.phase(), radians: radians)
            } else {
                op = .rotate(try fields.string("shape"), phase: try fields.phase(), radians: radians)
            }
        case "clear":
            op = .clear
        case "delete":
            op = .delete(try fields.shapeIDs(max: Canvas.maxDeleted))
        case "order":
            let ids = try fields.shapeIDs(max: Canvas.maxNamed)
            guard let move = StackMove(rawValue: try fields.string("to")) else {
                throw fields.bad("to", "front, back, forward or backward")
            }
            op = .order(ids, to: move)
        case "lock":
            let ids = try fields.shapeIDs(max: Canvas.maxNamed)
            guard let locked = try fields.optionalBool("locked") else { throw fields.bad("locked", "true or false") }
            op = .lock(ids, locked: locked)
        case "style":
            op = .style(try fields.shapeIDs(max: Canvas.maxNamed), try fields.stylePatch())
        case "text":
            let phase = try fields.phase()
            let text = try fields.optionalString("text")
            if text == nil, phase != .begin { throw fields.bad("text", "a string") }
            op = .text(try fields.string("shape"), phase: phase, text: text)
        case "duplicate":
            let ids = try fields.shapeIDs(max: Canvas.maxNamed)
            var newIDs: [ShapeID]?
            if let v = fields.json["ids"], v != .null {
                guard case .array(let items) = v, items.count <= Canvas.maxNamed else { throw fields.bad("ids", "an array of shape ids") }
                newIDs = []
                for case .string(let id) in items { newIDs?.append(id) }
                guard newIDs?.count == items.count else { throw fields.bad("ids", "an array of strings") }
            }
            op = .duplicate(ids, ids: newIDs)
        case "group":
            op = .group(try fields.shapeIDs(max: Canvas.maxNamed))
        case "ungroup":
            op = .ungroup(try fields.shapeIDs(max: Canvas.maxNamed))
        case "connect":
            let shapeID = try fields.optionalString("shapeId")
            var spec = ShapeSpec(kind: "arrow")
            if let value = try fields.optionalObject("shape") {
                spec = try shapeSpec(value, id: id)
                if case .string? = value["kind"] {} else { spec.kind = "arrow" }
            }
            op = .connect(shapeID: shapeID, spec: spec, from: try endSpec(fields, "from"), to: try endSpec(fields, "to"))
        case "endpoint":
            guard let end = ConnectorEnd(rawValue: try fields.string("end")) else { throw fields.bad("end", "from or to") }
            op = .endpoint(try fields.string("shape"), end: end, phase: try fields.phase(),
                           translation: Point(x: try fields.number("dx", default: 0), y: try fields.number("dy", default: 0)))
        case "undo":
            op = .undo
        case "redo":
            op = .redo
        default:
            throw ProtocolError(.unknownOp, "unknown op '\(kind.prefix(32))'", id: id)
        }
        return .op(id: id, op)
    }

    /// A connector end (1.7, P28): `{"x","y"}` (a point the server binds as it finds it), or
    /// `{"shape","anchor"}` or `{"shape","u","v"}` (bound as given).
    private static func endSpec(_ fields: Fields, _ key: String) throws(ProtocolError) -> EndSpec {
        guard let value = try fields.optionalObject(key) else { throw fields.bad(key, "an end: {x, y} or {shape, anchor}") }
        let end = Fields(json: value, id: fields.id)
        guard let shape = try end.optionalString("shape") else {
            return .at(Point(x: try end.number("x"), y: try end.number("y")))
        }
        if let name = try end.optionalString("anchor") {
            guard let anchor = Anchor(name: name) else { throw end.bad("anchor", "center, top, right, bottom or left") }
            return .bound(Binding(shape: shape, anchor: anchor))
        }
        return .bound(Binding(shape: shape, anchor: .point(u: try end.number("u"), v: try end.number("v"))))
    }

    private static func shapeSpec(_ json: JSONValue, id: String) throws(ProtocolError) -> ShapeSpec {
        let fields = Fields(json: json, id: id)
        var spec = ShapeSpec(kind: try fields.optionalString("kind") ?? "dot")
        spec.width = try fields.optionalNumber("w")
        spec.height = try fields.optionalNumber("h")
        spec.sides = try fields.optionalInt("sides")
        spec.points = try fields.optionalInt("points")
        spec.innerRatio = try fields.optionalNumber("inner")
        spec.depth = try fields.optionalInt("depth")
        if let name = try fields.optionalString("hatch") {
            guard let hatch = Hatch(rawValue: name) else { throw ProtocolError(.badMessage, "hatch is none, hatch or crossHatch", id: id) }
            spec.hatch = hatch
        }
        switch fields.json["fill"] {
        case .object?:
            let f = Fields(json: fields.json["fill"]!, id: id)
            spec.fill = HSBColor(h: try f.number("h"), s: try f.number("s"), b: try f.number("b"), a: try f.number("a", default: 1))
        case .string?, .null?, nil: break
        default: throw fields.bad("fill", "an object or a colour")
        }
        spec.style = try fields.stylePatch()
        spec.text = try fields.optionalString("text")
        return spec
    }
}

/// Typed access to an object's fields, naming the offending field in errors.
private struct Fields {
    let json: JSONValue
    let id: String?

    func bad(_ key: String, _ what: String) -> ProtocolError {
        ProtocolError(.badMessage, "'\(key)' must be \(what)", id: id)
    }

    func number(_ key: String, default value: Double? = nil) throws(ProtocolError) -> Double {
        switch json[key] {
        case .number(let v)?: return v
        case nil: if let value { return value }
        default: break
        }
        throw bad(key, "a number")
    }

    func optionalNumber(_ key: String) throws(ProtocolError) -> Double? {
        guard let v = json[key], v != .null else { return nil }
        guard case .number(let n) = v else { throw bad(key, "a number") }
        return n
    }

    func optionalInt(_ key: String) throws(ProtocolError) -> Int? {
        guard let n = try optionalNumber(key) else { return nil }
        guard n == n.rounded(), abs(n) < 1e9 else { throw bad(key, "a whole number") }
        return Int(n)
    }

    func optionalBool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let v = json[key], v != .null else { return nil }
        guard case .bool(let b) = v else { throw bad(key, "true or false") }
        return b
    }

    func string(_ key: String) throws(ProtocolError) -> String {
        guard case .string(let s)? = json[key] else { throw bad(key, "a string") }
        return s
    }

    func optionalString(_ key: String) throws(ProtocolError) -> String? {
        guard let v = json[key], v != .null else { return nil }
        guard case .string(let s) = v else { throw bad(key, "a string") }
        return s
    }

    func optionalObject(_ key: String) throws(ProtocolError) -> JSONValue? {
        guard let v = json[key], v != .null else { return nil }
        guard case .object = v else { throw bad(key, "an object") }
        return v
    }

    /// `shapes`: an array of 1–`max` strings (P13).
    func shapeIDs(max: Int) throws(ProtocolError) -> [ShapeID] {
        guard case .array(let items)? = json["shapes"], !items.isEmpty, items.count <= max else {
            throw bad("shapes", "an array of 1–\(max) shape ids")
        }
        var ids: [ShapeID] = []
        for case .string(let shape) in items { ids.append(shape) }
        guard ids.count == items.count else { throw bad("shapes", "an array of strings") }
        return ids
    }

    /// A colour field (1.7): `#rrggbb` or a palette name as 0xRRGGBB, or `UInt32.max` for any other string,
    /// which the canvas refuses `bad_style` (a reject, so the op's id is answered).
    func optionalColour(_ key: String) throws(ProtocolError) -> UInt32? {
        try optionalString(key).map { Palette.colour($0) ?? .max }
    }

    /// The style fields of a `style` op or a snap's shape (1.7): a `fill` given as a colour, `stroke`,
    /// `strokeWidth`, `opacity` and `fontSize`.
    func stylePatch() throws(ProtocolError) -> StylePatch {
        let fill: UInt32? = if case .string? = json["fill"] { try optionalColour("fill") } else { nil }
        return StylePatch(fill: fill, stroke: try optionalColour("stroke"), strokeWidth: try optionalNumber("strokeWidth"),
                          opacity: try optionalNumber("opacity"), fontSize: try optionalNumber("fontSize"))
    }

    /// A gesture's `shapes` (1.7, P29): 1–1,000 ids instead of one `shape`, which it may not also have;
    /// nil without them.
    func selection() throws(ProtocolError) -> [ShapeID]? {
        guard let value = json["shapes"], value != .null else { return nil }
        guard json["shape"] == nil else { throw bad("shape", "left out when 'shapes' names the shapes") }
        return try shapeIDs(max: Canvas.maxNamed)
    }

    func phase() throws(ProtocolError) -> GesturePhase? {
        guard let name = try optionalString("phase") else { return nil }
        guard let phase = GesturePhase(rawValue: name) else { throw bad("phase", "begin, update or end") }
        return phase
    }
}
