import SnapboardCore

extension Shape {
    /// Reads a shape in its flat wire form, the inverse of `ServerMessage.writeShape`, straight from a
    /// parsed value (replicas apply tens of thousands a second, too many for a `JSONDecoder` round trip).
    /// Nil when a field is missing, mistyped or out of range.
    public init?(json: JSONValue) {
        guard case .object(let o) = json,
              case .string(let id)? = o["id"], case .string(let name)? = o["kind"],
              case .number(let x)? = o["x"], case .number(let y)? = o["y"],
              case .number(let w)? = o["w"], case .number(let h)? = o["h"],
              case .number(let scale)? = o["scale"], case .number(let rotation)? = o["rotation"],
              case .object(let fill)? = o["fill"],
              case .number(let fh)? = fill["h"], case .number(let fs)? = fill["s"],
              case .number(let fb)? = fill["b"], case .number(let fa)? = fill["a"],
              case .string(let hatchName)? = o["hatch"], let hatch = Hatch(rawValue: hatchName),
              case .number(let z)? = o["z"], let zIndex = Int(exactly: z)
        else { return nil }
        func int(_ key: String) -> Int? { if case .number(let n)? = o[key] { Int(exactly: n) } else { nil } }
        func double(_ key: String) -> Double? { if case .number(let n)? = o[key] { n } else { nil } }
        guard let kind = try? ShapeKind.make(
            name: name, sides: int("sides"), points: int("points"), innerRatio: double("inner"), depth: int("depth"))
        else { return nil }
        self.init(
            id: id, kind: kind, center: Point(x: x, y: y), size: Size(width: w, height: h), scale: scale,
            rotation: rotation, fill: HSBColor(h: fh, s: fs, b: fb, a: fa), hatch: hatch, z: zIndex)
        switch o["locked"] {
        case nil: break
        case .bool(let locked)?: self.locked = locked
        default: return nil
        }
        switch o["text"] {
        case nil: break
        case .string(let text)?: self.text = text
        default: return nil
        }
        switch o["group"] {
        case nil: break
        case .string(let group)?: self.group = group
        default: return nil
        }
        for (key, end) in [("from", ConnectorEnd.from), ("to", .to)] {
            switch o[key] {
            case nil: break
            case .object(let b)?:
                guard case .string(let shape)? = b["shape"] else { return nil }
                if case .string(let name)? = b["anchor"] {
                    guard let anchor = Anchor(name: name) else { return nil }
                    setBinding(Binding(shape: shape, anchor: anchor), end)
                } else if case .number(let u)? = b["u"], case .number(let v)? = b["v"] {
                    setBinding(Binding(shape: shape, anchor: .point(u: u, v: v)), end)
                } else {
                    return nil
                }
            default: return nil
            }
        }
        switch o["stroke"] {
        case nil: break
        case .string(let hex)?:
            guard let rgb = Palette.colour(hex) else { return nil }
            style.stroke = rgb
        default: return nil
        }
        for (key, path) in [("strokeWidth", \ShapeStyle.strokeWidth), ("opacity", \.opacity), ("fontSize", \.fontSize)] {
            switch o[key] {
            case nil: break
            case .number(let v)?: style[keyPath: path] = v
            default: return nil
            }
        }
    }
}
