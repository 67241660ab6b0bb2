/// A point or a displacement in canvas space. Canvas units are abstract: clients map them to pixels.
public struct Point: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double

    @inlinable public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    /// True when both coordinates are finite (not NaN or infinite).
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite }

    @inlinable public static func + (lhs: Point, rhs: Point) -> Point { Point(x: lhs.x + rhs.x, y: lhs.y + rhs.y) }
    @inlinable public static func - (lhs: Point, rhs: Point) -> Point { Point(x: lhs.x - rhs.x, y: lhs.y - rhs.y) }
    @inlinable public static func * (lhs: Point, rhs: Double) -> Point { Point(x: lhs.x * rhs, y: lhs.y * rhs) }

    /// The point at `angle` radians and `radius` from `center`, with angle 0 along +x and growing towards +y.
    @inlinable public static func polar(center: Point, radius: Double, angle: Double) -> Point {
        Point(x: center.x + radius * cos(angle), y: center.y + radius * sin(angle))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
