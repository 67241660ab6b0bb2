import Foundation
import Testing

@testable import SnapboardCore

@Suite("Geometry and shapes (seed 004)")
struct ShapeTests {
    static let kinds: [ShapeKind] = [
        .dot, .roundedRect, .oval, .triangle, .polygon(sides: 3), .polygon(sides: 7), .polygon(sides: 12),
        .star(points: 5, innerRatio: 0.4), .star(points: 15, innerRatio: 0.8), .fractal(depth: 1), .fractal(depth: 4),
    ]

    func shape(_ kind: ShapeKind, scale: Double, rotation: Double) -> Shape {
        Shape(id: "s", kind: kind, center: Point(x: 400, y: 300), size: Size(width: 120, height: kind == .dot ? 120 : 80),
              scale: scale, rotation: rotation, fill: .seedDefault(hue: 0.5), z: 0)
    }

    @Test("Bounds hold every outline vertex and are tight to it, for scaled and rotated shapes", arguments: kinds)
    func boundsFitOutline(kind: ShapeKind) {
        for (scale, rotation) in [(1.0, 0.0), (2.5, 0.3), (0.4, 2.0), (1.3, -1.2), (1, .pi / 2)] {
            let s = shape(kind, scale: scale, rotation: rotation)
            let b = s.bounds
            let outline = Rect(bounding: s.contours.joined())
            let slack = 1e-9 * scale * 200
            #expect(b.minX <= outline.minX + slack && b.maxX >= outline.maxX - slack)
            #expect(b.minY <= outline.minY + slack && b.maxY >= outline.maxY - slack)
            // Curves are sampled, so the sampled outline may fall inside the true curve by a little.
            let sag = scale * 120 * (1 - cos(Double.pi / Double(Shape.circleSegments))) + slack
            #expect(outline.minX - b.minX <= sag && b.maxX - outline.maxX <= sag, "\(kind) \(scale) \(rotation)")
            #expect(outline.minY - b.minY <= sag && b.maxY - outline.maxY <= sag, "\(kind) \(scale) \(rotation)")
        }
    }

    @Test("A rotated rectangle's bounds grow by the rotation's cosine and sine")
    func rotatedOvalBounds() {
        let s = shape(.oval, scale: 1, rotation: .pi / 2)
        #expect(abs(s.bounds.width - 80) < 1e-9 && abs(s.bounds.height - 120) < 1e-9)
        let t = shape(.triangle, scale: 2, rotation: 0)
        #expect(t.bounds == Rect(x: 280, y: 220, width: 240, height: 160))
    }

    @Test("Polygons and stars have the vertex counts the seed describes, the first at the top")
    func vertexCounts() {
        #expect(shape(.polygon(sides: 7), scale: 1, rotation: 0).localVertices.count == 7)
        let star = shape(.star(points: 9, innerRatio: 0.5), scale: 1, rotation: 0).localVertices
        #expect(star.count == 18)
        #expect(abs(star[0].x) < 1e-12 && star[0].y == -40)
    }

    @Test("The circle fractal has (3^depth - 1) / 2 circles and fits its frame")
    func fractal() {
        for depth in 1...6 {
            let s = shape(.fractal(depth: depth), scale: 1, rotation: 0)
            #expect(s.contours.count == (Int(pow(3.0, Double(depth))) - 1) / 2)
            let b = s.bounds
            #expect(b.width <= 80 + 1e-9 && b.height <= 80 + 1e-9)
        }
    }

    @Test("Transforms compose as CoreGraphics does: scale, then rotate, then translate")
    func transformComposition() {
        let t = AffineTransform.translation(Point(x: 10, y: 20)).after(.rotation(.pi / 2)).after(.scale(2))
        let p = t.apply(Point(x: 1, y: 0))
        #expect(abs(p.x - 10) < 1e-12 && abs(p.y - 22) < 1e-12)
        let v = t.applyToVector(Point(x: 1, y: 0))
        #expect(abs(v.x) < 1e-12 && abs(v.y - 2) < 1e-12)
    }

    @Test("Shapes encode flat, with kind parameters only where they apply", arguments: kinds)
    func codable(kind: ShapeKind) throws {
        let s = shape(kind, scale: 1.5, rotation: 0.25)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(s)) as! [String: Any]
        #expect(json["kind"] as? String == kind.name && json["x"] as? Double == 400)
        #expect((json["sides"] != nil) == (kind.name == "polygon"))
        #expect(try JSONDecoder().decode(Shape.self, from: JSONEncoder().encode(s)) == s)
    }

    @Test("Shape ids are 1–64 characters of [A-Za-z0-9_-]")
    func ids() {
        #expect(Shape.isValidID("a-Z_09"))
        #expect(!Shape.isValidID(""))
        #expect(!Shape.isValidID("é"))
        #expect(!Shape.isValidID("a/b"))
        #expect(Shape.isValidID(String(repeating: "k", count: 64)))
        #expect(!Shape.isValidID(String(repeating: "k", count: 65)))
    }
}

@Suite("Hit testing")
struct HitTests {
    @Test("A shape contains the points inside its outline: a star's tip yes, the gap between tips no; a fractal's holes count")
    func contains() {
        let star = Shape(id: "s", kind: .star(points: 5, innerRatio: 0.3), center: Point(x: 100, y: 100), size: Size(width: 100, height: 100),
                         fill: .seedDefault(hue: 0), z: 0)
        #expect(star.contains(Point(x: 100, y: 100)))
        #expect(star.contains(Point(x: 100, y: 55)))  // inside the top tip
        #expect(!star.contains(Point(x: 80, y: 60)))  // between the top tip and its neighbour
        #expect(!star.contains(Point(x: 300, y: 100)))
        let rotated = Shape(id: "r", kind: .roundedRect, center: Point(x: 0, y: 0), size: Size(width: 100, height: 20),
                            rotation: .pi / 2, fill: .seedDefault(hue: 0), z: 0)
        #expect(rotated.contains(Point(x: 0, y: 45)) && !rotated.contains(Point(x: 45, y: 0)))
    }
}
