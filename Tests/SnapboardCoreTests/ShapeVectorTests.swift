import Foundation
import Testing

@testable import SnapboardCore

/// The browser client draws shapes with its own port of `contours` and `bounds` (Sources/SnapboardWeb/lib/
/// geometry.js). This test writes what SnapboardCore computes for random shapes of every kind, scale
/// and rotation to `.build/web/shape-vectors.json`; Tests/Web/geometry.test.mjs (run by `make test` after
/// the Swift tests) checks the JavaScript against it to 1e-9, so the two cannot drift apart.
@Suite("Shape geometry test vectors for the JavaScript client")
struct ShapeVectorTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../.build/web/shape-vectors.json").standardized

    static func randomKind(_ rng: inout SeededGenerator, _ i: Int) -> ShapeKind {
        switch i % 11 {
        case 0: .dot
        case 1: .roundedRect
        case 2: .oval
        case 3: .triangle
        case 4: .polygon(sides: Int.random(in: ShapeKind.sidesRange, using: &rng))
        case 5: .star(points: Int.random(in: ShapeKind.pointsRange, using: &rng), innerRatio: Double.random(in: ShapeKind.innerRatioRange, using: &rng))
        case 7: .text
        case 8: .note
        case 9: .line
        case 10: .arrow
        default: .fractal(depth: Int.random(in: ShapeKind.depthRange, using: &rng))
        }
    }

    @Test("Contours, bounds and hit tests of 220 random shapes, connectors among them, are written for the JavaScript test")
    func writeVectors() throws {
        var rng = SeededGenerator(seed: "web-vectors")
        var vectors: [[String: Any]] = []
        for i in 0..<220 {
            let kind = Self.randomKind(&rng, i)
            let w = Double.random(in: 4...400, using: &rng)
            let h = kind == .dot ? w : kind.isConnector ? Shape.connectorThickness : Double.random(in: 4...400, using: &rng)
            let shape = Shape(
                id: "v\(i)", kind: kind, center: Point(x: Double.random(in: -50...1100, using: &rng), y: Double.random(in: -50...900, using: &rng)),
                size: Size(width: w, height: h),
                scale: Double.random(in: 0.1...5, using: &rng), rotation: Double.random(in: 0..<(2 * .pi), using: &rng),
                fill: HSBColor(h: 0.5, s: 0.5, b: 0.5, a: 1), z: i)
            let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(shape))
            let b = shape.bounds
            // Points near the shape, and whether each is inside: the hit test a press uses.
            let probes = (0..<8).map { _ in
                Point(x: Double.random(in: b.minX - 5...b.maxX + 5, using: &rng), y: Double.random(in: b.minY - 5...b.maxY + 5, using: &rng))
            }
            vectors.append([
                "shape": json,
                "contours": shape.contours.map { $0.map { [$0.x, $0.y] } },
                "bounds": [b.minX, b.minY, b.maxX, b.maxY],
                "probes": probes.map { ["x": $0.x, "y": $0.y, "inside": shape.contains($0)] },
            ])
        }
        #expect(Set(vectors.compactMap { ($0["shape"] as? [String: Any])?["kind"] as? String }).count == ShapeKind.names.count + ShapeKind.connectorNames.count)
        try FileManager.default.createDirectory(at: Self.file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: ["vectors": vectors]).write(to: Self.file)
        #expect(FileManager.default.fileExists(atPath: Self.file.path))
    }
}
