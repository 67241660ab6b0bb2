/// Committed ops encode as `{"type":"create","shape":{…},"rng":N}`, `{"type":"place","placement":{…},"before":{…}}`,
/// `{"type":"clear","shapes":[…]}`, `{"type":"remove","shapes":[…]}`, `{"type":"restore","shapes":[…]}`,
/// `{"type":"order","shapes":[{"id","z","before"}…]}` or `{"type":"lock","shapes":[ids],"locked":B}` (1.6), or
/// `{"type":"edit","changes":[{"id","look":{…},"before":{…}}…]}` (1.7), a look being
/// `{"fill":{…},"text","stroke","strokeWidth","opacity","fontSize","group"}` with the same defaults as a shape's, or
/// `{"type":"reconnect","shape":{…},"before":{…}}` (1.7, P28): a connector whole, after and before, or
/// `{"type":"arrange","placements":[…],"before":[…]}` (1.7, P29): placements as `place` has them.
extension CommittedOp: Codable {
    enum CodingKeys: String, CodingKey {
        case type, shape, rng, placement, placements, before, shapes, locked, changes
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .type) {
        case "create": self = .create(try c.decode(Shape.self, forKey: .shape), rng: try c.decode(UInt64.self, forKey: .rng))
        case "place":
            self = .place(try c.decode(Placement.self, forKey: .placement), before: try c.decodeIfPresent(Placement.self, forKey: .before))
        case "clear": self = .clear(removed: try c.decodeIfPresent([Shape].self, forKey: .shapes) ?? [])
        case "remove": self = .remove(try c.decode([Shape].self, forKey: .shapes))
        case "restore": self = .restore(try c.decode([Shape].self, forKey: .shapes))
        case "order": self = .order(try c.decode([ZMove].self, forKey: .shapes))
        case "lock": self = .lock(try c.decode([ShapeID].self, forKey: .shapes), locked: try c.decode(Bool.self, forKey: .locked))
        case "edit": self = .edit(try c.decode([LookChange].self, forKey: .changes))
        case "reconnect": self = .reconnect(try c.decode(Shape.self, forKey: .shape), before: try c.decode(Shape.self, forKey: .before))
        case "arrange":
            let after = try c.decode([Placement].self, forKey: .placements), before = try c.decode([Placement].self, forKey: .before)
            guard after.count == before.count else {
                throw DecodingError.dataCorruptedError(forKey: .before, in: c, debugDescription: "an arrange's placements and befores differ in count")
            }
            self = .arrange(after, before: before)
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown committed op \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .create(let shape, let rng):
            try c.encode("create", forKey: .type)
            try c.encode(shape, forKey: .shape)
            try c.encode(rng, forKey: .rng)
        case .place(let placement, let before):
            try c.encode("place", forKey: .type)
            try c.encode(placement, forKey: .placement)
            try c.encodeIfPresent(before, forKey: .before)
        case .clear(let shapes):
            try c.encode("clear", forKey: .type)
            try c.encode(shapes, forKey: .shapes)
        case .remove(let shapes):
            try c.encode("remove", forKey: .type)
            try c.encode(shapes, forKey: .shapes)
        case .restore(let shapes):
            try c.encode("restore", forKey: .type)
            try c.encode(shapes, forKey: .shapes)
        case .order(let moves):
            try c.encode("order", forKey: .type)
            try c.encode(moves, forKey: .shapes)
        case .lock(let ids, let locked):
            try c.encode("lock", forKey: .type)
            try c.encode(ids, forKey: .shapes)
            try c.encode(locked, forKey: .locked)
        case .edit(let changes):
            try c.encode("edit", forKey: .type)
            try c.encode(changes, forKey: .changes)
        case .arrange(let after, let before):
            try c.encode("arrange", forKey: .type)
            try c.encode(after, forKey: .placements)
            try c.encode(before, forKey: .before)
        case .reconnect(let shape, let before):
            try c.encode("reconnect", forKey: .type)
            try c.encode(shape, forKey: .shape)
            try c.encode(before, forKey: .before)
        }
    }
}

extension ShapeLook: Codable {
    enum CodingKeys: String, CodingKey {
        case fill, text, stroke, strokeWidth, opacity, fontSize, group
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        fill = try c.decode(HSBColor.self, forKey: .fill)
        text = try c.decodeIfPresent(String.self, forKey: .text) ?? ""
        style = try ShapeStyle(from: c, stroke: .stroke, strokeWidth: .strokeWidth, opacity: .opacity, fontSize: .fontSize)
        group = try c.decodeIfPresent(String.self, forKey: .group)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(fill, forKey: .fill)
        if !text.isEmpty { try c.encode(text, forKey: .text) }
        try style.encode(to: &c, stroke: .stroke, strokeWidth: .strokeWidth, opacity: .opacity, fontSize: .fontSize)
        try c.encodeIfPresent(group, forKey: .group)
    }
}

extension ShapeStyle {
    /// Reads the style's fields from a container that holds them flat, as shapes and looks do: each absent
    /// one at its default, a stroke as `#rrggbb`.
    init<K: CodingKey>(from c: KeyedDecodingContainer<K>, stroke: K, strokeWidth: K, opacity: K, fontSize: K) throws {
        self.init()
        if let hex = try c.decodeIfPresent(String.self, forKey: stroke) {
            guard let rgb = Palette.colour(hex) else {
                throw DecodingError.dataCorruptedError(forKey: stroke, in: c, debugDescription: "a stroke is #rrggbb")
            }
            self.stroke = rgb
        }
        self.strokeWidth = try c.decodeIfPresent(Double.self, forKey: strokeWidth) ?? self.strokeWidth
        self.opacity = try c.decodeIfPresent(Double.self, forKey: opacity) ?? self.opacity
        self.fontSize = try c.decodeIfPresent(Double.self, forKey: fontSize) ?? self.fontSize
    }

    /// Writes the fields that differ from the defaults, flat.
    func encode<K: CodingKey>(to c: inout KeyedEncodingContainer<K>, stroke: K, strokeWidth: K, opacity: K, fontSize: K) throws {
        let standard = ShapeStyle.standard
        if let rgb = self.stroke { try c.encode(Palette.hex(rgb), forKey: stroke) }
        if self.strokeWidth != standard.strokeWidth { try c.encode(self.strokeWidth, forKey: strokeWidth) }
        if self.opacity != standard.opacity { try c.encode(self.opacity, forKey: opacity) }
        if self.fontSize != standard.fontSize { try c.encode(self.fontSize, forKey: fontSize) }
    }
}

