#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 2-D affine map `(x, y) -> (a·x + c·y + tx, b·x + d·y + ty)`, laid out as CoreGraphics does,
/// so an Apple client can turn it into a `CGAffineTransform` field by field.
public struct AffineTransform: Hashable, Sendable, Codable {
    public var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    @inlinable public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    @inlinable public static func translation(_ t: Point) -> AffineTransform {
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: t.x, ty: t.y)
    }

    @inlinable public static func scale(_ s: Double) -> AffineTransform {
        AffineTransform(a: s, b: 0, c: 0, d: s, tx: 0, ty: 0)
    }

    /// A rotation by `radians`, counter-clockwise in a y-up frame (clockwise on a y-down screen).
    @inlinable public static func rotation(_ radians: Double) -> AffineTransform {
        let cs = cos(radians), sn = sin(radians)
        return AffineTransform(a: cs, b: sn, c: -sn, d: cs, tx: 0, ty: 0)
    }

    /// The map that applies `first`, then `self`.
    @inlinable public func after(_ first: AffineTransform) -> AffineTransform {
        AffineTransform(
            a: a * first.a + c * first.b,
            b: b * first.a + d * first.b,
            c: a * first.c + c * first.d,
            d: b * first.c + d * first.d,
            tx: a * first.tx + c * first.ty + tx,
            ty: b * first.tx + d * first.ty + ty)
    }

    @inlinable public func apply(_ p: Point) -> Point {
        Point(x: a * p.x + c * p.y + tx, y: b * p.x + d * p.y + ty)
    }

    /// The map applied to a displacement: the translation part is ignored.
    @inlinable public func applyToVector(_ v: Point) -> Point {
        Point(x: a * v.x + c * v.y, y: b * v.x + d * v.y)
    }
}
