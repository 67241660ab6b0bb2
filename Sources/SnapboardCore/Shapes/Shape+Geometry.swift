#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Shape {
    /// How many straight segments approximate a full circle in `contours`.
    public static let circleSegments = 48

    /// The corner radius of a rounded rectangle with this unscaled frame.
    static func cornerRadius(for size: Size) -> Double {
        min(10, min(size.width, size.height) / 4)
    }

    /// The axis-aligned bounds of the scaled and rotated shape, exact for every kind
    /// (curves are bounded analytically, not from their sampled outline).
    public var bounds: Rect {
        let hw = size.width / 2 * scale, hh = size.height / 2 * scale
        let cs = cos(rotation), sn = sin(rotation)
        switch kind {
        case .dot:
            return Rect(minX: center.x - hw, minY: center.y - hw, maxX: center.x + hw, maxY: center.y + hw)
        case .oval:
            let ex = (hw * hw * cs * cs + hh * hh * sn * sn).squareRoot()
            let ey = (hw * hw * sn * sn + hh * hh * cs * cs).squareRoot()
            return Rect(minX: center.x - ex, minY: center.y - ey, maxX: center.x + ex, maxY: center.y + ey)
        case .roundedRect:
            let r = Shape.cornerRadius(for: size) * scale
            let iw = hw - r, ih = hh - r
            let ex = abs(iw * cs) + abs(ih * sn) + r
            let ey = abs(iw * sn) + abs(ih * cs) + r
            return Rect(minX: center.x - ex, minY: center.y - ey, maxX: center.x + ex, maxY: center.y + ey)
        case .triangle, .polygon, .star, .text, .note, .line, .arrow:
            let t = transform
            return Rect(bounding: localVertices.lazy.map { t.apply($0) })
        case .fractal(let depth):
            let t = transform
            var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
            for circle in Shape.fractalCircles(size: size, depth: depth) {
                let c = t.apply(circle.center), r = circle.radius * scale
                minX = min(minX, c.x - r); maxX = max(maxX, c.x + r)
                minY = min(minY, c.y - r); maxY = max(maxY, c.y + r)
            }
            return Rect(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        }
    }

    /// True when `point` lies inside the outline (even-odd rule over every contour): what a tap hits.
    public func contains(_ point: Point) -> Bool {
        guard bounds.contains(point) else { return false }
        var inside = false
        for polygon in contours {
            var j = polygon.count - 1
            for i in polygon.indices {
                let a = polygon[i], b = polygon[j]
                if (a.y > point.y) != (b.y > point.y), point.x < (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
                j = i
            }
        }
        return inside
    }

    /// The outline in canvas space, as closed polygons (one, or one per circle of a fractal).
    /// Curves are sampled with `circleSegments` segments per full turn, so every client draws the same geometry.
    public var contours: [[Point]] {
        let t = transform
        switch kind {
        case .fractal(let depth):
            return Shape.fractalCircles(size: size, depth: depth).map { circle in
                Shape.ellipse(center: circle.center, rx: circle.radius, ry: circle.radius, segments: Shape.circleSegments)
                    .map { t.apply($0) }
            }
        default:
            return [localVertices.map { t.apply($0) }]
        }
    }

    /// The outline vertices in the local frame: centred on the origin, unscaled, unrotated, y pointing down.
    var localVertices: [Point] {
        let hw = size.width / 2, hh = size.height / 2
        switch kind {
        case .dot:
            return Shape.ellipse(center: .zero, rx: hw, ry: hw, segments: Shape.circleSegments)
        case .oval:
            return Shape.ellipse(center: .zero, rx: hw, ry: hh, segments: Shape.circleSegments)
        case .roundedRect:
            let r = Shape.cornerRadius(for: size)
            let quarter = Shape.circleSegments / 4
            let corners = [
                (Point(x: hw - r, y: -hh + r), -Double.pi / 2),
                (Point(x: hw - r, y: hh - r), 0.0),
                (Point(x: -hw + r, y: hh - r), Double.pi / 2),
                (Point(x: -hw + r, y: -hh + r), Double.pi),
            ]
            return corners.flatMap { corner, start in
                (0...quarter).map { i in
                    Point.polar(center: corner, radius: r, angle: start + Double(i) * (Double.pi / 2) / Double(quarter))
                }
            }
        case .triangle:
            return [Point(x: 0, y: -hh), Point(x: hw, y: hh), Point(x: -hw, y: hh)]
        case .text, .note, .line, .arrow:
            return [Point(x: -hw, y: -hh), Point(x: hw, y: -hh), Point(x: hw, y: hh), Point(x: -hw, y: hh)]
        case .polygon(let sides):
            return (0..<sides).map { i in
                let angle = -Double.pi / 2 + Double(i) * 2 * Double.pi / Double(sides)
                return Point(x: hw * cos(angle), y: hh * sin(angle))
            }
        case .star(let points, let innerRatio):
            return (0..<(2 * points)).map { i in
                let angle = -Double.pi / 2 + Double(i) * Double.pi / Double(points)
                let k = i.isMultiple(of: 2) ? 1 : innerRatio
                return Point(x: k * hw * cos(angle), y: k * hh * sin(angle))
            }
        case .fractal(let depth):
            // Only the first circle; `contours` gives every circle of the fractal.
            let r = Shape.fractalRadius(size: size, depth: depth)
            return Shape.ellipse(center: .zero, rx: r, ry: r, segments: Shape.circleSegments)
        }
    }

    static func ellipse(center: Point, rx: Double, ry: Double, segments: Int) -> [Point] {
        (0..<segments).map { i in
            let angle = Double(i) * 2 * Double.pi / Double(segments)
            return Point(x: center.x + rx * cos(angle), y: center.y + ry * sin(angle))
        }
    }

    /// The radius of the fractal's first circle, chosen so the whole fractal fits the frame:
    /// its reach is `R·(1 + 1/2 + … )` over `depth` levels.
    static func fractalRadius(size: Size, depth: Int) -> Double {
        let reach = 2 - pow(2, Double(1 - depth))
        return min(size.width, size.height) / 2 / reach
    }

    /// Every circle of the fractal in the local frame: `(3^depth - 1) / 2` of them.
    static func fractalCircles(size: Size, depth: Int) -> [(center: Point, radius: Double)] {
        // The three directions of the inscribed triangle's vertices, apex up, as in seed 004.
        let directions = (0..<3).map { k in
            Point.polar(center: .zero, radius: 1, angle: -Double.pi / 2 + Double(k) * 2 * Double.pi / 3)
        }
        var circles = [(center: Point.zero, radius: fractalRadius(size: size, depth: depth))]
        var level = circles
        for _ in 1..<max(depth, 1) {
            level = level.flatMap { parent in
                directions.map { (center: parent.center + $0 * parent.radius, radius: parent.radius / 2) }
            }
            circles += level
        }
        return circles
    }
}
