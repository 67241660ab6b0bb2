/// What a snap was made to.
public enum SnapTarget: Hashable, Sendable {
    /// An edge or centre of another shape.
    case shape(ShapeID)
    /// An edge or the centre of the canvas.
    case canvas
    /// A gridline.
    case grid
    /// A position that repeats a gap between neighbours (equal spacing).
    case gap

    /// The wire form: the shape id, `"canvas"` or `"grid"`.
    public var wireValue: String {
        switch self {
        case .shape(let id): id
        case .canvas: "canvas"
        case .grid: "grid"
        case .gap: "gap"
        }
    }
}
