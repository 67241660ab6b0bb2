/// An axis-aligned rectangle. Its size is never negative.
public struct Rect: Hashable, Sendable, Codable {
    public var origin: Point
    public var size: Size

    @inlinable public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    @inlinable public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    /// The smallest rectangle holding both corners.
    @inlinable public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.init(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// The smallest rectangle that holds every point; `.zero` for none.
    public init(bounding points: some Sequence<Point>) {
        var minX = Double.infinity, minY = Double.infinity
        var maxX = -Double.infinity, maxY = -Double.infinity
        for p in points {
            minX = Swift.min(minX, p.x); maxX = Swift.max(maxX, p.x)
            minY = Swift.min(minY, p.y); maxY = Swift.max(maxY, p.y)
        }
        self = minX <= maxX ? Rect(minX: minX, minY: minY, maxX: maxX, maxY: maxY) : .zero
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    @inlinable public var minX: Double { origin.x }
    @inlinable public var minY: Double { origin.y }
    @inlinable public var maxX: Double { origin.x + size.width }
    @inlinable public var maxY: Double { origin.y + size.height }
    @inlinable public var midX: Double { origin.x + size.width / 2 }
    @inlinable public var midY: Double { origin.y + size.height / 2 }
    @inlinable public var width: Double { size.width }
    @inlinable public var height: Double { size.height }
    @inlinable public var center: Point { Point(x: midX, y: midY) }

    /// The rectangle moved by `delta`; its size is unchanged.
    @inlinable public func offsetBy(_ delta: Point) -> Rect {
        Rect(origin: origin + delta, size: size)
    }

    /// The rectangle shrunk by `dx` on the left and right and `dy` at the top and bottom.
    @inlinable public func insetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: minX + dx, y: minY + dy, width: Swift.max(0, width - 2 * dx), height: Swift.max(0, height - 2 * dy))
    }

    /// The smallest rectangle holding both.
    @inlinable public func union(_ other: Rect) -> Rect {
        Rect(minX: Swift.min(minX, other.minX), minY: Swift.min(minY, other.minY),
             maxX: Swift.max(maxX, other.maxX), maxY: Swift.max(maxY, other.maxY))
    }

    /// True when `point` lies inside or on the edge.
    @inlinable public func contains(_ point: Point) -> Bool {
        point.x >= minX && point.x <= maxX && point.y >= minY && point.y <= maxY
    }

    /// The coordinate range on one axis: `minX...maxX` or `minY...maxY`.
    @inlinable public func span(_ axis: Axis) -> ClosedRange<Double> {
        axis == .x ? minX...maxX : minY...maxY
    }
}
