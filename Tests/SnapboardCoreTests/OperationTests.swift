import Foundation
import Testing

@testable import SnapboardCore

@Suite("Operations and rejections")
struct OperationTests {
    @Test("A tap becomes a dot at the nearest grid intersection, with the seed's default colour")
    func snapCreatesDot() throws {
        var canvas = try makeCanvas()
        let out = try canvas.apply(.snap(at: Point(x: 149, y: 351), shapeID: nil, spec: ShapeSpec()), by: alice)
        let dot = try #require(out.changed.first)
        #expect(dot.kind == .dot && dot.center == Point(x: 100, y: 400) && dot.size == Size(width: 24, height: 24))
        #expect(dot.fill.s == 0.8 && dot.fill.b == 1 && dot.fill.a == 0.8 && (0..<1).contains(dot.fill.h))
        #expect(dot.id == "s1" && out.seq == 1 && canvas.seq == 1)
        #expect(out.commit == .create(dot, rng: canvas.rng.state))
    }

    @Test("Default hues come from a generator seeded by the canvas id: the same on every run, different per canvas")
    func seededColours() throws {
        func hues(_ id: String) throws -> [Double] {
            var canvas = try Canvas(id: id)
            return try (0..<5).map { _ in try canvas.apply(.snap(at: Point(x: 50, y: 50), shapeID: nil, spec: ShapeSpec()), by: alice).changed[0].fill.h }
        }
        #expect(try hues("room-1") == hues("room-1"))
        #expect(try hues("room-1") != hues("room-2"))
    }

    @Test("Each committed operation adds exactly one to seq; begin and update add nothing")
    func seqCounting() throws {
        var canvas = try makeCanvas()
        try canvas.add("a", at: Point(x: 300, y: 300))
        #expect(canvas.seq == 1)
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 3, y: 3)), by: alice)
        #expect(canvas.seq == 1)
        let end = try canvas.apply(.move("a", phase: .end, translation: Point(x: 3, y: 3)), by: alice)
        #expect(canvas.seq == 2 && end.seq == 2)
        _ = try canvas.apply(.clear, by: alice)
        #expect(canvas.seq == 3)
    }

    @Test("Server-chosen ids never collide with client-chosen ones")
    func freshIDs() throws {
        var canvas = try makeCanvas()
        try canvas.add("s2", at: Point(x: 300, y: 300))
        let next = try canvas.apply(.snap(at: Point(x: 50, y: 50), shapeID: nil, spec: ShapeSpec()), by: alice)
        #expect(next.changed[0].id == "s2-1")
    }

    /// Each case is an operation on a canvas holding `a` (at 300, 300) that must be refused with `code`.
    static let refused: [(String, CanvasOp, Rejection.Code)] = {
        var huge = ShapeSpec(kind: "oval")
        huge.width = 1e9
        var badFill = ShapeSpec()
        badFill.fill = HSBColor(h: 2, s: 0, b: 0, a: 1)
        var nanWidth = ShapeSpec(kind: "oval")
        nanWidth.width = .nan
        var sides = ShapeSpec(kind: "polygon")
        sides.sides = 13
        var points = ShapeSpec(kind: "star")
        points.points = 4
        var inner = ShapeSpec(kind: "star")
        inner.innerRatio = 0.95
        var depth = ShapeSpec(kind: "fractal")
        depth.depth = 7
        return [
            ("NaN tap", .snap(at: Point(x: .nan, y: 1), shapeID: nil, spec: ShapeSpec()), .notFinite),
            ("infinite tap", .snap(at: Point(x: 1, y: .infinity), shapeID: nil, spec: ShapeSpec()), .notFinite),
            ("tap left of the canvas", .snap(at: Point(x: -1, y: 1), shapeID: nil, spec: ShapeSpec()), .outOfBounds),
            ("tap below the canvas", .snap(at: Point(x: 1, y: 1000.5), shapeID: nil, spec: ShapeSpec()), .outOfBounds),
            ("unknown kind", .snap(at: Point(x: 1, y: 1), shapeID: nil, spec: ShapeSpec(kind: "hexagram")), .badShape),
            ("too big", .snap(at: Point(x: 1, y: 1), shapeID: nil, spec: huge), .badShape),
            ("NaN width", .snap(at: Point(x: 1, y: 1), shapeID: nil, spec: nanWidth), .notFinite),
            ("hue above 1", .snap(at: Point(x: 1, y: 1), shapeID: nil, spec: badFill), .badShape),
            ("13 sides", .snap(at: Point(x: 1, y: 1), shapeID: nil, spec: sides), .badShape),
            ("4 points", .snap(at: Point(x: 1, y: 1), shapeID: nil, spec: points), .badShape),
            ("inner ratio 0.95", .snap(at: Point(x: 1, y: 1), shapeID: nil, spec: inner), .badShape),
            ("depth 7", .snap(at: Point(x: 1, y: 1), shapeID: nil, spec: depth), .badShape),
            ("taken id", .snap(at: Point(x: 1, y: 1), shapeID: "a", spec: ShapeSpec()), .badShapeID),
            ("malformed id", .snap(at: Point(x: 1, y: 1), shapeID: "a b", spec: ShapeSpec()), .badShapeID),
            ("65-character id", .snap(at: Point(x: 1, y: 1), shapeID: String(repeating: "x", count: 65), spec: ShapeSpec()), .badShapeID),
            ("move of a missing shape", .move("zz", phase: nil, translation: .zero), .unknownShape),
            ("NaN move", .move("a", phase: nil, translation: Point(x: .nan, y: 0)), .notFinite),
            ("infinite move", .move("a", phase: .begin, translation: Point(x: 0, y: -.infinity)), .notFinite),
            ("zero factor", .scale("a", phase: nil, factor: 0, anchor: nil), .outOfRange),
            ("negative factor", .scale("a", phase: nil, factor: -2, anchor: nil), .outOfRange),
            ("NaN factor", .scale("a", phase: nil, factor: .nan, anchor: nil), .notFinite),
            ("anchor off the canvas", .scale("a", phase: nil, factor: 2, anchor: Point(x: 5000, y: 0)), .outOfBounds),
            ("NaN angle", .rotate("a", phase: nil, radians: .nan), .notFinite),
            ("huge angle", .rotate("a", phase: nil, radians: 1e12), .outOfRange),
            ("update without begin", .rotate("a", phase: .update, radians: 1), .noGesture),
            ("end without begin", .scale("a", phase: .end, factor: 1, anchor: nil), .noGesture),
        ]
    }()

    @Test("Refused operations get their documented code and leave the canvas unchanged", arguments: refused)
    func refusals(name: String, op: CanvasOp, code: Rejection.Code) throws {
        var canvas = try makeCanvas()
        try canvas.add("a", at: Point(x: 300, y: 300))
        let before = canvas.liveSnapshot
        expectRejection(code) { _ = try canvas.apply(op, by: alice) }
        #expect(canvas.liveSnapshot == before, "\(name)")
        #expect(canvas.leases.isEmpty)
    }

    @Test("A full canvas refuses new shapes with canvas_full")
    func canvasFull() throws {
        var canvas = try makeCanvas { $0.maxShapes = 2 }
        try canvas.add("a", at: Point(x: 300, y: 300))
        try canvas.add("b", at: Point(x: 500, y: 300))
        expectRejection(.canvasFull) { try canvas.add("c", at: Point(x: 700, y: 300)) }
        #expect(canvas.count == 2)
    }

    @Test("Invalid configs are refused with a message")
    func invalidConfigs() {
        var config = CanvasConfig()
        config.width = .nan
        #expect(throws: Canvas.InvalidConfig.self) { try Canvas(id: "x", config: config) }
        config = CanvasConfig()
        config.gridX = .divisions(1)
        #expect(throws: Canvas.InvalidConfig.self) { try Canvas(id: "x", config: config) }
        config = CanvasConfig()
        config.snapping.angleTolerance = 1
        #expect(throws: Canvas.InvalidConfig.self) { try Canvas(id: "x", config: config) }
    }

    @Test("A snapshot encodes to JSON and decodes to an equal canvas")
    func snapshotRoundTrip() throws {
        var canvas = try makeCanvas { $0.layout = nil }
        for (i, kind) in ShapeKind.names.enumerated() {
            var spec = ShapeSpec(kind: kind)
            spec.hatch = Hatch.allCases[i % 3]
            _ = try canvas.apply(.snap(at: Point(x: Double(100 + i * 100), y: 500), shapeID: nil, spec: spec), by: alice)
        }
        _ = try canvas.apply(.rotate("s3", phase: nil, radians: 0.7), by: alice)
        let data = try JSONEncoder().encode(canvas.committedSnapshot)
        let decoded = try JSONDecoder().decode(CanvasSnapshot.self, from: data)
        #expect(decoded == canvas.committedSnapshot)
        #expect(try Canvas(snapshot: decoded).committedSnapshot == canvas.committedSnapshot)
    }
}
