/// Committed ops encode as `{"type":"create","shape":{…},"rng":N}`, `{"type":"place","placement":{…},"before":{…}}`,
/// `{"type":"clear","shapes":[…]}`, `{"type":"remove","shapes":[…]}`, `{"type":"restore","shapes":[…]}`,
/// `{"type":"order","shapes":[{"id","z","before"}…]}` or `{"type":"lock","shapes":[ids],"locked":B}` (1.6).
extension CommittedOp: Codable {
    enum CodingKeys: String, CodingKey {
        case type, shape, rng, placement, before, shapes, locked
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
        }
    }
}

