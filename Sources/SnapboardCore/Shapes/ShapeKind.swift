/// What a shape looks like before it is scaled and rotated (seed 004, plus the seed 000 dot).
public enum ShapeKind: Hashable, Sendable {
    /// A filled circle whose diameter is the shape's width: the seed 000 tap marker.
    case dot
    /// A rectangle with corners rounded by `min(10, side / 4)`.
    case roundedRect
    /// An ellipse inscribed in the shape's frame.
    case oval
    /// Apex at the top middle, base along the bottom edge.
    case triangle
    /// A regular polygon of `sides` (3–12) vertices on the inscribed circle, the first at the top.
    case polygon(sides: Int)
    /// A star of `points` (5–15) tips on the outer circle, and valleys at `innerRatio` (0.1–0.9) of it.
    case star(points: Int, innerRatio: Double)
    /// The circle fractal: a circle, then circles of half the radius on its inscribed triangle's
    /// vertices, repeated `depth` (1–6) times in all.
    case fractal(depth: Int)
    /// Free text (1.7): a frame that draws no fill and no outline, only its text, top-left aligned.
    case text
    /// A sticky note (1.7): a rectangle with its fill and its text centred.
    case note
    /// A connector (1.7, P28): a straight line between two ends, each free or bound to a shape. Its frame is
    /// the segment, `width` long and `Shape.connectorThickness` high (what a tap hits), turned by `rotation`.
    case line
    /// A connector with an arrowhead at its `to` end (1.7, P28).
    case arrow

    /// True for `line` and `arrow`, which `connect` makes and a snap does not.
    public var isConnector: Bool { self == .line || self == .arrow }

    /// The parameters of the kinds that have them, as `make` takes them.
    public var sides: Int? { if case .polygon(let n) = self { n } else { nil } }
    public var points: Int? { if case .star(let n, _) = self { n } else { nil } }
    public var innerRatio: Double? { if case .star(_, let r) = self { r } else { nil } }
    public var depth: Int? { if case .fractal(let d) = self { d } else { nil } }

    /// The wire name of the kind.
    public var name: String {
        switch self {
        case .dot: "dot"
        case .roundedRect: "roundedRect"
        case .oval: "oval"
        case .triangle: "triangle"
        case .polygon: "polygon"
        case .star: "star"
        case .fractal: "fractal"
        case .text: "text"
        case .note: "note"
        case .line: "line"
        case .arrow: "arrow"
        }
    }

    /// Every wire name a snap makes, in the order the terminal client cycles through them.
    public static let names = ["dot", "roundedRect", "oval", "triangle", "polygon", "star", "fractal", "text", "note"]
    /// The connector kinds' wire names (1.7, P28).
    public static let connectorNames = ["line", "arrow"]

    public static let sidesRange = 3...12
    public static let pointsRange = 5...15
    public static let innerRatioRange = 0.1...0.9
    public static let depthRange = 1...6

    /// Builds a kind from its wire name and optional parameters, with defaults for those left out.
    /// Throws `Rejection.badShape` for an unknown name or a parameter out of range.
    public static func make(
        name: String, sides: Int? = nil, points: Int? = nil, innerRatio: Double? = nil, depth: Int? = nil
    ) throws(Rejection) -> ShapeKind {
        switch name {
        case "dot": return .dot
        case "roundedRect": return .roundedRect
        case "oval": return .oval
        case "triangle": return .triangle
        case "text": return .text
        case "note": return .note
        case "line": return .line
        case "arrow": return .arrow
        case "polygon":
            let sides = sides ?? 6
            guard sidesRange.contains(sides) else { throw Rejection(.badShape, "polygon sides must be 3–12, got \(sides)") }
            return .polygon(sides: sides)
        case "star":
            let points = points ?? 5
            let inner = innerRatio ?? 0.4
            guard pointsRange.contains(points) else { throw Rejection(.badShape, "star points must be 5–15, got \(points)") }
            guard inner.isFinite, innerRatioRange.contains(inner) else {
                throw Rejection(.badShape, "star inner ratio must be 0.1–0.9")
            }
            return .star(points: points, innerRatio: inner)
        case "fractal":
            let depth = depth ?? 5
            guard depthRange.contains(depth) else { throw Rejection(.badShape, "fractal depth must be 1–6, got \(depth)") }
            return .fractal(depth: depth)
        default:
            throw Rejection(.badShape, "unknown shape kind '\(name.prefix(32))'")
        }
    }
}
