import SnapboardCore

extension ClientMessage {
    /// The message as JSON text: what every client (the terminal client, the load tool, the tests)
    /// sends, written in one place. `decode(encode())` gives the message back.
    public func encode() -> [UInt8] {
        var w = JSONWriter(reserving: 128)
        w.beginObject()
        switch self {
        case .ping(let t):
            w.string("type", "ping")
            if let t {
                w.key("t")
                w.value(t)
            }
        case .cursor(let at):
            w.string("type", "cursor")
            if let at {
                w.number("x", at.x)
                w.number("y", at.y)
            }
        case .view(let zoom):
            w.string("type", "view")
            w.number("zoom", zoom)
        case .op(let id, let op):
            w.string("type", "op")
            w.string("id", id)
            Self.write(op, into: &w)
        }
        w.endObject()
        return w.bytes
    }

    private static func write(_ op: CanvasOp, into w: inout JSONWriter) {
        switch op {
        case .snap(let at, let shapeID, let spec):
            w.string("op", "snap")
            w.number("x", at.x)
            w.number("y", at.y)
            if let shapeID { w.string("shapeId", shapeID) }
            if spec != ShapeSpec() { write(spec, into: &w) }
        case .move(let shape, let phase, let translation, let snap):
            gesture("move", shape, phase, into: &w)
            w.number("dx", translation.x)
            w.number("dy", translation.y)
            if !snap { w.bool("snap", false) }
        case .scale(let shape, let phase, let factor, let anchor, let radians):
            gesture("scale", shape, phase, into: &w)
            w.number("factor", factor)
            if let anchor {
                w.number("ax", anchor.x)
                w.number("ay", anchor.y)
            }
            if radians != 0 { w.number("radians", radians) }
        case .rotate(let shape, let phase, let radians):
            gesture("rotate", shape, phase, into: &w)
            w.number("radians", radians)
        case .clear:
            w.string("op", "clear")
        case .delete(let ids):
            w.string("op", "delete")
            shapes(ids, into: &w)
        case .order(let ids, let move):
            w.string("op", "order")
            shapes(ids, into: &w)
            w.string("to", move.rawValue)
        case .lock(let ids, let locked):
            w.string("op", "lock")
            shapes(ids, into: &w)
            w.bool("locked", locked)
        case .style(let ids, let patch):
            w.string("op", "style")
            shapes(ids, into: &w)
            write(patch, fill: true, into: &w)
        case .text(let shape, let phase, let text):
            gesture("text", shape, phase, into: &w)
            if let text { w.string("text", text) }
        case .duplicate(let ids, let newIDs):
            w.string("op", "duplicate")
            shapes(ids, into: &w)
            if let newIDs {
                w.beginArray("ids")
                for id in newIDs { w.string(id) }
                w.endArray()
            }
        case .group(let ids):
            w.string("op", "group")
            shapes(ids, into: &w)
        case .ungroup(let ids):
            w.string("op", "ungroup")
            shapes(ids, into: &w)
        case .connect(let shapeID, let spec, let from, let to):
            w.string("op", "connect")
            if let shapeID { w.string("shapeId", shapeID) }
            write(spec, into: &w)
            write(from, "from", into: &w)
            write(to, "to", into: &w)
        case .moveMany(let ids, let phase, let translation, let snap):
            selection("move", ids, phase, into: &w)
            w.number("dx", translation.x)
            w.number("dy", translation.y)
            if !snap { w.bool("snap", false) }
        case .scaleMany(let ids, let phase, let factor, let anchor, let radians):
            selection("scale", ids, phase, into: &w)
            w.number("factor", factor)
            if let anchor {
                w.number("ax", anchor.x)
                w.number("ay", anchor.y)
            }
            if radians != 0 { w.number("radians", radians) }
        case .rotateMany(let ids, let phase, let radians):
            selection("rotate", ids, phase, into: &w)
            w.number("radians", radians)
        case .endpoint(let shape, let end, let phase, let translation):
            gesture("endpoint", shape, phase, into: &w)
            w.string("end", end.rawValue)
            w.number("dx", translation.x)
            w.number("dy", translation.y)
        case .undo:
            w.string("op", "undo")
        case .redo:
            w.string("op", "redo")
        }
    }

    private static func shapes(_ ids: [ShapeID], into w: inout JSONWriter) {
        w.beginArray("shapes")
        for id in ids { w.string(id) }
        w.endArray()
    }

    private static func selection(_ kind: StaticString, _ ids: [ShapeID], _ phase: GesturePhase?, into w: inout JSONWriter) {
        w.string("op", kind.description)
        shapes(ids, into: &w)
        if let phase { w.string("phase", phase.rawValue) }
    }

    private static func gesture(_ kind: StaticString, _ shape: ShapeID, _ phase: GesturePhase?, into w: inout JSONWriter) {
        w.string("op", kind.description)
        w.string("shape", shape)
        if let phase { w.string("phase", phase.rawValue) }
    }

    private static func write(_ end: EndSpec, _ key: StaticString, into w: inout JSONWriter) {
        w.beginObject(key)
        switch end {
        case .at(let p):
            w.number("x", p.x)
            w.number("y", p.y)
        case .bound(let binding):
            ServerMessage.writeBinding(&w, binding)
        }
        w.endObject()
    }

    private static func write(_ spec: ShapeSpec, into w: inout JSONWriter) {
        w.beginObject("shape")
        w.string("kind", spec.kind)
        if let v = spec.width { w.number("w", v) }
        if let v = spec.height { w.number("h", v) }
        if let v = spec.sides { w.number("sides", v) }
        if let v = spec.points { w.number("points", v) }
        if let v = spec.innerRatio { w.number("inner", v) }
        if let v = spec.depth { w.number("depth", v) }
        if let hatch = spec.hatch { w.string("hatch", hatch.rawValue) }
        if let fill = spec.fill {
            w.beginObject("fill")
            w.number("h", fill.h)
            w.number("s", fill.s)
            w.number("b", fill.b)
            w.number("a", fill.a)
            w.endObject()
        }
        write(spec.style, fill: spec.fill == nil, into: &w)
        if let text = spec.text { w.string("text", text) }
        w.endObject()
    }

    /// A style's fields; a colour beyond 24 bits (one the parser could not read) as `"?"`, so it is refused
    /// again. `fill` false leaves the fill colour out, where an HSB fill object holds the key.
    private static func write(_ patch: StylePatch, fill: Bool, into w: inout JSONWriter) {
        func colour(_ key: StaticString, _ rgb: UInt32?) {
            guard let rgb else { return }
            w.string(key, rgb > 0xFF_FFFF ? "?" : Palette.hex(rgb))
        }
        if fill { colour("fill", patch.fill) }
        colour("stroke", patch.stroke)
        if let v = patch.strokeWidth { w.number("strokeWidth", v) }
        if let v = patch.opacity { w.number("opacity", v) }
        if let v = patch.fontSize { w.number("fontSize", v) }
    }
}
