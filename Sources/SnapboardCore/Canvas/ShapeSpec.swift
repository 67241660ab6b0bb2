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
    /// The style to give it (1.7): a fill colour here overrides `fill`'s hue, saturation and brightness.
    public var style = StylePatch()
    /// Its text (1.7, P26).
    public var text: String?

    public init(kind: String = "dot") { self.kind = kind }

    /// The default frame: a 24-unit dot (seed 000 draws 25-point dots), a 240×60 text, a 200-unit note, or
    /// a 120-unit square.
    static func defaultSize(for kind: ShapeKind) -> Size {
        switch kind {
        case .dot: Size(width: 24, height: 24)
        case .text: Size(width: 240, height: 60)
        case .note: Size(width: 200, height: 200)
        default: Size(width: 120, height: 120)
        }
    }
}
