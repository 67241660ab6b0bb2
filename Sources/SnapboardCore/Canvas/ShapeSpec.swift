/// What a new shape should look like. Anything left nil takes the canvas default.
public struct ShapeSpec: Hashable, Sendable {
    public var kind: String = "dot"
    public var width: Double?
    public var height: Double?
    public var fill: HSBColor?
    public var hatch: Hatch?
    public var sides: Int?
    public var points: Int?
    public var innerRatio: Double?
    public var depth: Int?

    public init(kind: String = "dot") { self.kind = kind }

    /// The default frame: a 24-unit dot (seed 000 draws 25-point dots) or a 120-unit square.
    static func defaultSize(for kind: ShapeKind) -> Double { kind == .dot ? 24 : 120 }
}
