#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where on a shape a connector's end is bound (1.7, P28): its centre, the middle of one of its edges, or a
/// point in its own frame, as fractions of its width and height from its centre (each −0.5…0.5), so the end
/// follows the shape as it moves, scales and turns.
public enum Anchor: Hashable, Sendable {
    case center, top, right, bottom, left
    case point(u: Double, v: Double)

    /// The named anchors, the ones an end snaps to, in the order they are tried.
    public static let named: [Anchor] = [.center, .top, .right, .bottom, .left]
    /// The range of `u` and `v`.
    public static let fractions = -0.5...0.5

    /// The wire name of a named anchor; nil for a point.
    public var name: String? {
        switch self {
        case .center: "center"
        case .top: "top"
        case .right: "right"
        case .bottom: "bottom"
        case .left: "left"
        case .point: nil
        }
    }

    public init?(name: String) {
        guard let anchor = Anchor.named.first(where: { $0.name == name }) else { return nil }
        self = anchor
    }

    /// The anchor as fractions of the frame from its centre.
    public var fraction: Point {
        switch self {
        case .center: Point(x: 0, y: 0)
        case .top: Point(x: 0, y: -0.5)
        case .right: Point(x: 0.5, y: 0)
        case .bottom: Point(x: 0, y: 0.5)
        case .left: Point(x: -0.5, y: 0)
        case .point(let u, let v): Point(x: u, y: v)
        }
    }

    /// True when a point's fractions are finite and within `fractions`.
    public var isValid: Bool {
        guard case .point(let u, let v) = self else { return true }
        return u.isFinite && v.isFinite && Anchor.fractions.contains(u) && Anchor.fractions.contains(v)
    }
}

/// A connector end bound to an anchor of shape `shape` (1.7, P28).
public struct Binding: Hashable, Sendable {
    public var shape: ShapeID
    public var anchor: Anchor

    public init(shape: ShapeID, anchor: Anchor) {
        self.shape = shape
        self.anchor = anchor
    }
}

/// Which end of a connector.
public enum ConnectorEnd: String, Hashable, Sendable, CaseIterable {
    case from, to
}

extension Shape {
    /// A connector's height: how far from its line a tap still hits it, both sides together.
    public static let connectorThickness = 16.0
    /// The longest a connector may be before its scale: a diagonal of the largest canvas.
    public static let maxConnectorLength = 2 * Canvas.maxLength
    /// The scales a connector may have: every scale a pinch can give one, 16 / 2,000,000 to 2,000,000 / 16,
    /// with room to spare.
    public static let connectorScales = 1e-6...2e5

    /// A connector's two ends in canvas space: the middles of its frame's left and right sides.
    public var endpoints: (from: Point, to: Point) {
        let t = transform
        return (t.apply(Point(x: -size.width / 2, y: 0)), t.apply(Point(x: size.width / 2, y: 0)))
    }

    /// The end `end` of a connector.
    public func endpoint(_ end: ConnectorEnd) -> Point { end == .from ? endpoints.from : endpoints.to }

    /// The binding of end `end`.
    public func binding(_ end: ConnectorEnd) -> Binding? { end == .from ? from : to }

    public mutating func setBinding(_ binding: Binding?, _ end: ConnectorEnd) {
        if end == .from { from = binding } else { to = binding }
    }

    /// The point of `anchor` on this shape, in canvas space.
    public func point(of anchor: Anchor) -> Point {
        let f = anchor.fraction
        return transform.apply(Point(x: f.x * size.width, y: f.y * size.height))
    }

    /// `anchor` as a point in this shape's own frame: where `p` lies, as fractions, clamped to the frame.
    public func anchor(at p: Point) -> Anchor {
        let d = p - center, cs = cos(rotation), sn = sin(rotation)
        let local = Point(x: (d.x * cs + d.y * sn) / scale, y: (-d.x * sn + d.y * cs) / scale)
        func fraction(_ v: Double, _ side: Double) -> Double {
            guard side > 0, v.isFinite else { return 0 }
            return min(max(v / side, -0.5), 0.5)
        }
        return .point(u: fraction(local.x, size.width), v: fraction(local.y, size.height))
    }

    /// This connector laid from `a` to `b`, keeping its scale and height: its centre the midpoint, its
    /// rotation the direction (kept when the ends meet), its width the distance over the scale, at most
    /// `maxConnectorLength`.
    public func spanning(from a: Point, to b: Point) -> Shape {
        var shape = self
        let d = b - a
        let length = (d.x * d.x + d.y * d.y).squareRoot()
        shape.center = Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
        if length > 0 { shape.rotation = Canvas.normalized(atan2(d.y, d.x)) }
        shape.size.width = min(length / scale, Shape.maxConnectorLength)
        return shape
    }
}
