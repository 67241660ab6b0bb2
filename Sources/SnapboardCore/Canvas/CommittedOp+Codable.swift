/// Committed ops encode as `{"type":"create","shape":{…},"rng":N}`, `{"type":"place",…placement}` or `{"type":"clear"}`.
extension CommittedOp: Codable {
    enum CodingKeys: String, CodingKey {
        case type, shape, rng, placement
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .type) {
        case "create": self = .create(try c.decode(Shape.self, forKey: .shape), rng: try c.decode(UInt64.self, forKey: .rng))
        case "place": self = .place(try c.decode(Placement.self, forKey: .placement))
        case "clear": self = .clear
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
        case .place(let placement):
            try c.encode("place", forKey: .type)
            try c.encode(placement, forKey: .placement)
        case .clear:
            try c.encode("clear", forKey: .type)
        }
    }
}

