/// Where a gesture left a shape.
public struct Placement: Hashable, Sendable, Codable {
    public var id: ShapeID
    public var center: Point
    public var size: Size
    public var scale: Double
    public var rotation: Double
    public var z: Int

    /// A placement from its numbers, as the op log stores them.
    public init(id: ShapeID, center: Point, size: Size, scale: Double, rotation: Double, z: Int) {
        (self.id, self.center, self.size, self.scale, self.rotation, self.z) = (id, center, size, scale, rotation, z)
    }

    /// Where `shape` stands now.
    public init(of shape: Shape) {
        id = shape.id
        center = shape.center
        size = shape.size
        scale = shape.scale
        rotation = shape.rotation
        z = shape.z
    }

    /// True when both put a shape in the same place: centre, size, scale and rotation equal, z aside, to
    /// within 10⁻⁹ of each number's size, the rounding that keeping a shape on the canvas can leave (a nudge
    /// against an edge comes back to its centre give or take a unit in the last place).
    public func isSamePlace(as other: Placement) -> Bool {
        func same(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }
        // Rotations lie in 0..<2π: one just under 2π is the same turn as 0.
        let turn = abs(rotation - other.rotation)
        return same(center.x, other.center.x) && same(center.y, other.center.y) && same(size.width, other.size.width)
            && same(size.height, other.size.height) && same(scale, other.scale) && min(turn, 2 * Double.pi - turn) <= 1e-9
    }

    /// `shape` moved to this placement.
    public func applied(to shape: Shape) -> Shape {
        var s = shape
        apply(to: &s)
        return s
    }

    /// Moves `shape` to this placement where it lies.
    public func apply(to shape: inout Shape) {
        shape.center = center
        shape.size = size
        shape.scale = scale
        shape.rotation = rotation
        shape.z = z
    }
}
