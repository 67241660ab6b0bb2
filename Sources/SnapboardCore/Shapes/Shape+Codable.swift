/// Shapes encode flat, as the wire protocol shows them:
/// `{"id","kind","x","y","w","h","scale","rotation","fill":{"h","s","b","a"},"hatch","z"}` plus
/// `sides` for polygons, `points` and `inner` for stars and `depth` for fractals, and `"locked":true` only
/// on a locked shape (1.6: absent means unlocked, so what older servers wrote still reads), and `text`,
/// `stroke`, `strokeWidth`, `opacity`, `fontSize` and `group` only where they differ from their defaults (1.7),
/// and a connector's bound ends `from` and `to` (1.7, P28).
extension Shape: Codable {
    enum CodingKeys: String, CodingKey {
        case id, kind, x, y, w, h, scale, rotation, fill, hatch, z, sides, points, inner, depth, locked
        case text, stroke, strokeWidth, opacity, fontSize, group, from, to
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .kind)
        let sides = try c.decodeIfPresent(Int.self, forKey: .sides)
        let points = try c.decodeIfPresent(Int.self, forKey: .points)
        let inner = try c.decodeIfPresent(Double.self, forKey: .inner)
        let depth = try c.decodeIfPresent(Int.self, forKey: .depth)
        do throws(Rejection) {
            kind = try ShapeKind.make(
                name: name, sides: sides, points: points,
                innerRatio: inner, depth: depth)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: error.message)
        }
        id = try c.decode(String.self, forKey: .id)
        center = Point(x: try c.decode(Double.self, forKey: .x), y: try c.decode(Double.self, forKey: .y))
        size = Size(width: try c.decode(Double.self, forKey: .w), height: try c.decode(Double.self, forKey: .h))
        scale = try c.decode(Double.self, forKey: .scale)
        rotation = try c.decode(Double.self, forKey: .rotation)
        fill = try c.decode(HSBColor.self, forKey: .fill)
        hatch = try c.decode(Hatch.self, forKey: .hatch)
        z = try c.decode(Int.self, forKey: .z)
        locked = try c.decodeIfPresent(Bool.self, forKey: .locked) ?? false
        text = try c.decodeIfPresent(String.self, forKey: .text) ?? ""
        style = try ShapeStyle(from: c, stroke: .stroke, strokeWidth: .strokeWidth, opacity: .opacity, fontSize: .fontSize)
        group = try c.decodeIfPresent(String.self, forKey: .group)
        from = try c.decodeIfPresent(Binding.self, forKey: .from)
        to = try c.decodeIfPresent(Binding.self, forKey: .to)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind.name, forKey: .kind)
        try c.encode(center.x, forKey: .x)
        try c.encode(center.y, forKey: .y)
        try c.encode(size.width, forKey: .w)
        try c.encode(size.height, forKey: .h)
        try c.encode(scale, forKey: .scale)
        try c.encode(rotation, forKey: .rotation)
        try c.encode(fill, forKey: .fill)
        try c.encode(hatch, forKey: .hatch)
        try c.encode(z, forKey: .z)
        switch kind {
        case .polygon(let sides): try c.encode(sides, forKey: .sides)
        case .star(let points, let inner):
            try c.encode(points, forKey: .points)
            try c.encode(inner, forKey: .inner)
        case .fractal(let depth): try c.encode(depth, forKey: .depth)
        case .dot, .roundedRect, .oval, .triangle, .text, .note, .line, .arrow: break
        }
        if locked { try c.encode(true, forKey: .locked) }
        if !text.isEmpty { try c.encode(text, forKey: .text) }
        try style.encode(to: &c, stroke: .stroke, strokeWidth: .strokeWidth, opacity: .opacity, fontSize: .fontSize)
        try c.encodeIfPresent(group, forKey: .group)
        try c.encodeIfPresent(from, forKey: .from)
        try c.encodeIfPresent(to, forKey: .to)
    }
}

/// A binding encodes as `{"shape":ID,"anchor":"center"|"top"|"right"|"bottom"|"left"}`, or with a point
/// anchor `{"shape":ID,"u":U,"v":V}` (1.7, P28).
extension Binding: Codable {
    enum CodingKeys: String, CodingKey {
        case shape, anchor, u, v
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        shape = try c.decode(String.self, forKey: .shape)
        if let name = try c.decodeIfPresent(String.self, forKey: .anchor) {
            guard let named = Anchor(name: name) else {
                throw DecodingError.dataCorruptedError(forKey: .anchor, in: c, debugDescription: "unknown anchor \(name.prefix(32))")
            }
            anchor = named
        } else {
            anchor = .point(u: try c.decode(Double.self, forKey: .u), v: try c.decode(Double.self, forKey: .v))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(shape, forKey: .shape)
        if case .point(let u, let v) = anchor {
            try c.encode(u, forKey: .u)
            try c.encode(v, forKey: .v)
        } else {
            try c.encode(anchor.name, forKey: .anchor)
        }
    }
}
