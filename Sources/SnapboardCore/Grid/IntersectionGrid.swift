/// The snap-to grid of seed 000: a tap resolves to the nearest interior intersection of the gridlines.
public struct IntersectionGrid: Hashable, Sendable, Codable {
    public let x: GridAxis
    public let y: GridAxis

    public init(x: GridAxis, y: GridAxis) {
        self.x = x
        self.y = y
    }

    /// A grid that cuts a `width × height` canvas into `columns × rows` equal parts, or nil when either
    /// axis would have no interior line.
    public init?(width: Double, height: Double, columns: Int, rows: Int) {
        guard let x = GridAxis(length: width, spacing: .divisions(columns)),
              let y = GridAxis(length: height, spacing: .divisions(rows)) else { return nil }
        self.init(x: x, y: y)
    }

    /// A grid with lines every `pitch` units on both axes, or nil when an axis would have no interior line.
    public init?(width: Double, height: Double, pitch: Double) {
        guard let x = GridAxis(length: width, spacing: .pitch(pitch)),
              let y = GridAxis(length: height, spacing: .pitch(pitch)) else { return nil }
        self.init(x: x, y: y)
    }

    /// The axis along `axis`.
    @inlinable public func axis(_ axis: Axis) -> GridAxis { axis == .x ? x : y }

    /// The interior intersection nearest to `point`, clamped to the outermost interior intersections.
    @inlinable public func snap(_ point: Point) -> Point {
        Point(x: x.snap(point.x), y: y.snap(point.y))
    }
}
