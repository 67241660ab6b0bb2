/// Spacing encodes as `{"divisions": n}` or `{"pitch": p}`.
extension GridAxis.Spacing {
    enum CodingKeys: String, CodingKey {
        case divisions, pitch
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // One of the two, never both: a pitch beside divisions would be read by no one, so it is refused.
        if c.contains(.divisions) && c.contains(.pitch) {
            throw DecodingError.dataCorruptedError(forKey: .pitch, in: c, debugDescription: "a grid axis has divisions or pitch, not both")
        }
        if let n = try c.decodeIfPresent(Int.self, forKey: .divisions) {
            self = .divisions(n)
        } else {
            self = .pitch(try c.decode(Double.self, forKey: .pitch))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .divisions(let n): try c.encode(n, forKey: .divisions)
        case .pitch(let p): try c.encode(p, forKey: .pitch)
        }
    }
}

/// Sizing encodes as `{"mode": "flexible"|"squareFromRows"|"squareFromColumns", "rows"?, "columns"?}`.
extension LayoutGrid.Sizing {
    enum CodingKeys: String, CodingKey {
        case mode, rows, columns
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .mode) {
        case "flexible":
            self = .flexible(rows: try c.decode(Int.self, forKey: .rows), columns: try c.decode(Int.self, forKey: .columns))
        case "squareFromRows": self = .squareFromRows(try c.decode(Int.self, forKey: .rows))
        case "squareFromColumns": self = .squareFromColumns(try c.decode(Int.self, forKey: .columns))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .mode, in: c, debugDescription: "unknown layout mode \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .flexible(let rows, let columns):
            try c.encode("flexible", forKey: .mode)
            try c.encode(rows, forKey: .rows)
            try c.encode(columns, forKey: .columns)
        case .squareFromRows(let rows):
            try c.encode("squareFromRows", forKey: .mode)
            try c.encode(rows, forKey: .rows)
        case .squareFromColumns(let columns):
            try c.encode("squareFromColumns", forKey: .mode)
            try c.encode(columns, forKey: .columns)
        }
    }
}
