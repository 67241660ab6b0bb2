@testable import SnapboardCore
import Testing

/// Every number a canvas takes from outside (an import, a stored checkpoint or log) is checked against its
/// documented range before the engine computes with it, and live operations stop before a seq or z could
/// overflow.
@Suite("Ranges: imports and stored data are checked, and no arithmetic can overflow")
struct RangeTests {
    /// A canvas's snapshot with two shapes, as an export gives it.
    static func snapshot() throws -> CanvasSnapshot {
        var canvas = try makeCanvas()
        try canvas.add("a", at: Point(x: 300, y: 300))
        try canvas.add("b", at: Point(x: 700, y: 700))
        return canvas.committedSnapshot
    }

    static let outOfRange: [(String, @Sendable (inout CanvasSnapshot) -> Void)] = [
        ("z at 2^63−1", { $0.shapes[0].z = .max }),
        ("z at −2^63", { $0.shapes[0].z = .min }),
        ("z just past 2^53−1", { $0.shapes[0].z = Canvas.maxZ + 1 }),
        ("seq at 2^63−1", { $0.seq = .max }),
        ("seq just past 2^53−1", { $0.seq = Canvas.maxSeq + 1 }),
        ("seq below 0", { $0.seq = -1 }),
        ("rotation 1e308", { $0.shapes[0].rotation = 1e308 }),
        ("rotation below 0", { $0.shapes[0].rotation = -0.5 }),
        ("rotation NaN", { $0.shapes[0].rotation = .nan }),
        ("maxSize 1e308", { $0.config.maxSize = 1e308 }),
        ("maxSize past a million", { $0.config.maxSize = 1_000_001 }),
        ("minSize 0", { $0.config.minSize = 0 }),
        ("width 0.5", { $0.config.width = 0.5 }),
        ("layout padding 1e308", { $0.config.layoutPadding = 1e308 }),
        ("layout padding NaN", { $0.config.layoutPadding = .nan }),
        ("grid divisions 50000", { $0.config.gridX = .divisions(50_000) }),
        ("width 1e308 of a shape", { $0.shapes[0].size.width = 1e308 }),
        ("scale 1e308", { $0.shapes[0].scale = 1e308 }),
        ("scale 1e-308", { $0.shapes[0].scale = 1e-308 }),
        ("centre x infinite", { $0.shapes[0].center.x = .infinity }),
        ("centre y off the canvas", { $0.shapes[0].center.y = -1 }),
    ]

    @Test("A snapshot with any number out of range has a problem, and Canvas(snapshot:) refuses it instead of trapping",
          arguments: outOfRange.indices)
    func snapshotRanges(_ index: Int) throws {
        let (name, damage) = Self.outOfRange[index]
        var snapshot = try Self.snapshot()
        #expect(snapshot.problem == nil)
        damage(&snapshot)
        #expect(snapshot.problem != nil, "\(name) passed")
        #expect(throws: Canvas.InvalidConfig.self, "\(name) loaded") { try Canvas(snapshot: snapshot) }
    }

    @Test("The edges of the ranges are taken: seq and z at 2^53−1, rotation 2π, maxSize a million")
    func edgesTaken() throws {
        var snapshot = try Self.snapshot()
        snapshot.seq = Canvas.maxSeq
        snapshot.shapes[0].z = Canvas.maxZ
        snapshot.shapes[1].z = -Canvas.maxZ
        snapshot.shapes[0].rotation = 2 * Double.pi
        snapshot.config.maxSize = 1_000_000
        #expect(snapshot.problem == nil)
        #expect(try Canvas(snapshot: snapshot).seq == Canvas.maxSeq)
    }

    @Test("At the last live seq every operation is refused out_of_range; nothing overflows")
    func lastLiveSeq() throws {
        var snapshot = try Self.snapshot()
        snapshot.seq = Canvas.lastLiveSeq
        var canvas = try Canvas(snapshot: snapshot)
        expectRejection(.outOfRange) { _ = try canvas.apply(.snap(at: Point(x: 100, y: 100), shapeID: nil, spec: ShapeSpec(kind: "dot")), by: alice) }
        expectRejection(.outOfRange) { _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice) }
        expectRejection(.outOfRange) { _ = try canvas.apply(.clear, by: alice) }
        #expect(canvas.seq == Canvas.lastLiveSeq)
        snapshot.seq = Canvas.lastLiveSeq - 1
        canvas = try Canvas(snapshot: snapshot)
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: bob)
        // Each gesture moved its shape, so each has something to commit (P14: one back where it began would not).
        _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 50, y: 0)), by: alice)
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: -50, y: 0)), by: bob)
        _ = try canvas.apply(.snap(at: Point(x: 100, y: 100), shapeID: nil, spec: ShapeSpec(kind: "dot")), by: alice)
        // The gestures still open commit past the last live seq, and stay within maxSeq.
        _ = canvas.endGestures(ownedBy: "alice")
        _ = canvas.endGestures(ownedBy: "bob")
        #expect(canvas.seq == Canvas.lastLiveSeq + 2)
        #expect(canvas.committedSnapshot.problem == nil)
    }

    @Test("With the top shape at the largest z, a snap or a gesture that would stack above it is refused out_of_range")
    func lastZ() throws {
        var snapshot = try Self.snapshot()
        snapshot.shapes[1].z = Canvas.maxZ
        var canvas = try Canvas(snapshot: snapshot)
        expectRejection(.outOfRange) { _ = try canvas.apply(.snap(at: Point(x: 100, y: 100), shapeID: nil, spec: ShapeSpec(kind: "dot")), by: alice) }
        expectRejection(.outOfRange) { _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice) }
        // The top shape is on top already: dragging it needs no new z.
        _ = try canvas.apply(.move("b", phase: nil, translation: Point(x: 10, y: 0)), by: alice)
        #expect(canvas.committedSnapshot.problem == nil)
    }

    @Test("A move beyond ±2,000,000 or a scale factor past a million is refused out_of_range")
    func gestureRanges() throws {
        var canvas = try Canvas(snapshot: Self.snapshot())
        expectRejection(.outOfRange) { _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: 1e308, y: 0)), by: alice) }
        expectRejection(.outOfRange) { _ = try canvas.apply(.scale("a", phase: nil, factor: 1e308, anchor: nil), by: alice) }
        expectRejection(.notFinite) { _ = try canvas.apply(.rotate("a", phase: nil, radians: .infinity), by: alice) }
    }

    @Test("An undo of a delete on a canvas filled since brings back only what fits, and skips the rest canvas_full")
    func undoIntoAFullCanvas() throws {
        var canvas = try makeCanvas { $0.maxShapes = 3 }
        for (i, x) in [100.0, 300, 500].enumerated() { try canvas.add("s\(i)", at: Point(x: x, y: 100)) }
        let deleted = try canvas.apply(.delete(["s0", "s1"]), by: alice)
        try canvas.add("n0", at: Point(x: 100, y: 500))
        let (effect, skipped) = canvas.reverting(deleted.commit!)
        guard case .restore(let back)? = effect else {
            Issue.record("no restore: \(String(describing: effect))")
            return
        }
        #expect(back.map(\.id) == ["s0"])
        #expect(skipped.map(\.shape) == ["s1"] && skipped.map(\.code) == [.canvasFull])
        _ = canvas.apply(effect: .restore(back))
        #expect(canvas.count == 3)
        #expect(canvas.committedSnapshot.problem == nil)
    }

    @Test("Logged effects carry the same checks: a create, a placement or a restore with a number out of range has a problem")
    func loggedEffects() throws {
        let snapshot = try Self.snapshot()
        var shape = snapshot.shapes[0]
        #expect(CommittedOp.create(shape, rng: 1).problem(in: snapshot.config) == nil)
        shape.z = .max
        #expect(CommittedOp.create(shape, rng: 1).problem(in: snapshot.config) != nil)
        var placement = Placement(of: snapshot.shapes[0])
        placement.center.x = .nan
        #expect(CommittedOp.place(placement, before: nil).problem(in: snapshot.config) != nil)
        #expect(CommittedOp.place(Placement(of: snapshot.shapes[1]), before: placement).problem(in: snapshot.config) != nil)
        #expect(CommittedOp.restore([shape]).problem(in: snapshot.config) != nil)
    }
}
