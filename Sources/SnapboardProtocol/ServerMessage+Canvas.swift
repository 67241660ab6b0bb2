import SnapboardCore

/// A canvas as JSON: the document HTTP returns, and the shapes, grid, layout and snapping it shares with the welcome.
extension ServerMessage {
    /// A canvas as HTTP returns it: `{"canvas","seq","grid","bounded","snapping","layout"?,"maxShapes","shapes",
    /// "sessions"}`, with
    /// `sessions` the number connected (0 for a past state).
    public static func canvasDocument(id: String, seq: Int, config: CanvasConfig, shapes: some Collection<Shape>, sessions: Int) -> [UInt8] {
        var w = JSONWriter(reserving: 384 + shapes.count * 160)
        w.beginObject()
        w.string("canvas", id)
        w.number("seq", seq)
        writeGrid(&w, config)
        w.bool("bounded", config.bounded)
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

    /// A binding's fields (1.7, P28): `shape`, then `anchor`, or `u` and `v` for a point.
    public static func writeBinding(_ w: inout JSONWriter, _ b: Binding) {
        w.string("shape", b.shape)
        if case .point(let u, let v) = b.anchor {
            w.number("u", u)
            w.number("v", v)
        } else if let name = b.anchor.name {
            w.string("anchor", name)
        }
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
        case .dot, .roundedRect, .oval, .triangle, .text, .note, .line, .arrow: break
        }
        // Only when set (1.6, 1.7), so a client before it sees the shapes it always saw.
        if s.locked { w.bool("locked", true) }
        if !s.text.isEmpty { w.string("text", s.text) }
        let standard = ShapeStyle.standard
        if let stroke = s.style.stroke { w.string("stroke", Palette.hex(stroke)) }
        if s.style.strokeWidth != standard.strokeWidth { w.number("strokeWidth", s.style.strokeWidth) }
        if s.style.opacity != standard.opacity { w.number("opacity", s.style.opacity) }
        if s.style.fontSize != standard.fontSize { w.number("fontSize", s.style.fontSize) }
        if let group = s.group { w.string("group", group) }
        writeBinding(&w, "from", s.from)
        writeBinding(&w, "to", s.to)
        w.endObject()
    }

    /// A connector end's binding as the object `k`, when it has one.
    private static func writeBinding(_ w: inout JSONWriter, _ k: StaticString, _ b: Binding?) {
        guard let b else { return }
        w.beginObject(k)
        writeBinding(&w, b)
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

    /// The canvas's layout grid (seed 002), when it has one: how it is sized, the rows and columns that
    /// result, the padding (margin and gap), one cell's size, so a client can draw the cells, and whether
    /// shapes fill their cell (`fill`) or keep their aspect ratio.
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
        w.bool("fill", c.layoutFill)
        w.endObject()
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
}
