/// Where a gesture left a shape.
public struct Placement: Hashable, Sendable, Codable {
    public var id: ShapeID
    public var center: Point
    public var size: Size
    public var scale: Double
    public var rotation: Double
    public var z: Int

    public init(of shape: Shape) {
        id = shape.id
        center = shape.center
        size = shape.size
        scale = shape.scale
        rotation = shape.rotation
        z = shape.z
    }

    /// `shape` moved to this placement.
    public func applied(to shape: Shape) -> Shape {
        var s = shape
        s.center = center
        s.size = size
        s.scale = scale
        s.rotation = rotation
        s.z = z
        return s
    }
}
