import Foundation
import Testing

@testable import SnapboardCore

private func near(_ p: Point, _ q: Point, _ tolerance: Double = 1e-6) -> Bool {
    abs(p.x - q.x) <= tolerance && abs(p.y - q.y) <= tolerance
}

/// Shapes `a` (300, 300), `b` (700, 700) and `c` (500, 200), each 100 × 100.
private func threeShapes() throws -> Canvas {
    var canvas = try twoShapes()
    try canvas.add("c", at: Point(x: 500, y: 200))
    return canvas
}

@Suite("Selection gestures (1.7, P29)")
struct SelectionGestureTests {
    @Test("A drag of a selection leases every shape at its begin, moves them together, and commits one arrange: one seq, one undo step")
    func moveTogether() throws {
        var canvas = try threeShapes()
        let begin = try canvas.apply(.moveMany(["a", "b"], phase: .begin, translation: .zero), by: bob)
        #expect(canvas.leases == ["a": "bob", "b": "bob"] && begin.commit == nil && Set(begin.changed.map(\.id)) == ["a", "b"])
        let update = try canvas.apply(.moveMany(["a", "b"], phase: .update, translation: Point(x: 40, y: -20), snap: false), by: bob)
        #expect(near(update.changed[0].center, Point(x: 340, y: 280)) && near(update.changed[1].center, Point(x: 740, y: 680)))
        let end = try canvas.apply(.moveMany(["a", "b"], phase: .end, translation: Point(x: 40, y: -20), snap: false), by: bob)
        #expect(end.seq == 4 && canvas.leases.isEmpty)
        guard case .arrange(let after, let before)? = end.commit else { throw CancellationError() }
        #expect(after.map(\.id) == ["a", "b"] && before.map(\.center) == [Point(x: 300, y: 300), Point(x: 700, y: 700)])
        // Brought to the front in their order: above c.
        #expect(canvas.shape("a")!.z > canvas.shape("c")!.z && canvas.shape("b")!.z == canvas.shape("a")!.z + 1)
        // One undo step puts both back.
        _ = canvas.apply(effect: try #require(canvas.reverting(end.commit!).effect))
        #expect(canvas.shape("a")?.center == Point(x: 300, y: 300) && canvas.shape("b")?.center == Point(x: 700, y: 700))
    }

    @Test("A selection snaps its bounds as one shape: its bottom edge onto another shape's top edge, with one haptic and a guide")
    func snapsAsOne() throws {
        var canvas = try threeShapes()
        // The union of a (y 250…350) and c (y 150…250) ends at y 350; b's top edge is at 650. 297 puts it at 647.
        _ = try canvas.apply(.moveMany(["a", "c"], phase: .begin, translation: .zero), by: bob)
        let snapped = try canvas.apply(.moveMany(["a", "c"], phase: .update, translation: Point(x: 0, y: 297)), by: bob)
        #expect(snapped.haptics.count == 1 && snapped.guides.contains { $0.axis == .y && $0.at == 650 })
        #expect(near(snapped.changed[0].center, Point(x: 300, y: 600)) && near(snapped.changed[1].center, Point(x: 500, y: 500)))
    }

    @Test("A pinch scales each shape and its distance from the anchor; a twist turns them about the selection's centre, snapped to the angle step")
    func scaleAndTurn() throws {
        var canvas = try twoShapes()
        let scaled = try canvas.apply(.scaleMany(["a", "b"], phase: nil, factor: 0.5, anchor: nil), by: alice)
        #expect(near(canvas.shape("a")!.center, Point(x: 400, y: 400)) && near(canvas.shape("b")!.center, Point(x: 600, y: 600)))
        #expect(canvas.shape("a")?.scale == 0.5 && scaled.seq == 3)
        _ = try canvas.apply(.rotateMany(["a", "b"], phase: nil, radians: .pi / 2 + 0.01), by: alice)
        // A quarter turn clockwise on screen about (500, 500): a goes from the top left to the top right.
        #expect(near(canvas.shape("a")!.center, Point(x: 600, y: 400)) && abs(canvas.shape("a")!.rotation - .pi / 2) < 1e-9)
    }

    @Test("Refused whole: fewer than two shapes, an unknown or locked one, one another session holds, an update naming other shapes")
    func refusals() throws {
        var canvas = try threeShapes()
        let before = canvas.committedSnapshot
        expectRejection(.outOfRange) { _ = try canvas.apply(.moveMany(["a", "a"], phase: .begin, translation: .zero), by: alice) }
        expectRejection(.unknownShape) { _ = try canvas.apply(.moveMany(["a", "ghost"], phase: .begin, translation: .zero), by: alice) }
        _ = try canvas.apply(.lock(["c"], locked: true), by: alice)
        expectRejection(.locked) { _ = try canvas.apply(.moveMany(["a", "c"], phase: .begin, translation: .zero), by: alice) }
        _ = try canvas.apply(.lock(["c"], locked: false), by: alice)
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: bob)
        expectRejection(.shapeLocked) { _ = try canvas.apply(.moveMany(["a", "b"], phase: .begin, translation: .zero), by: alice) }
        #expect(canvas.leases == ["b": "bob"])
        _ = try canvas.apply(.move("b", phase: .end, translation: .zero), by: bob)
        _ = try canvas.apply(.moveMany(["a", "c"], phase: .begin, translation: .zero), by: alice)
        expectRejection(.noGesture) { _ = try canvas.apply(.moveMany(["a", "b"], phase: .update, translation: Point(x: 1, y: 1)), by: alice) }
        expectRejection(.noGesture) { _ = try canvas.apply(.rotateMany(["a", "c"], phase: .update, radians: 1), by: alice) }
        expectRejection(.shapeLocked) { _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: bob) }
        let end = try canvas.apply(.moveMany(["c", "a"], phase: .end, translation: .zero), by: alice)
        #expect(end.unchanged && end.commit == nil && canvas.leases.isEmpty)
        #expect(canvas.committedSnapshot.shapes.map(Placement.init).map(\.center) == before.shapes.map(Placement.init).map(\.center))
    }

    @Test("A lapsed lease or a disconnect ends the whole selection once; a member deleted meanwhile is left out")
    func endedByServer() throws {
        var canvas = try threeShapes()
        _ = try canvas.apply(.moveMany(["a", "b", "c"], phase: .begin, translation: .zero), by: bob)
        _ = try canvas.apply(.moveMany(["a", "b", "c"], phase: .update, translation: Point(x: 10, y: 10), snap: false), by: bob)
        _ = try canvas.apply(.delete(["c"]), by: bob)
        let lapsed = canvas.endGesture(on: "b")
        guard case .arrange(let after, _)? = lapsed?.commit else { throw CancellationError() }
        let again = canvas.endGesture(on: "a")
        #expect(after.map(\.id) == ["a", "b"] && canvas.leases.isEmpty && again == nil)
        _ = try canvas.apply(.moveMany(["a", "b"], phase: .begin, translation: .zero), by: bob)
        _ = try canvas.apply(.moveMany(["a", "b"], phase: .update, translation: Point(x: 5, y: 0), snap: false), by: bob)
        let left = canvas.endGestures(ownedBy: "bob")
        #expect(left.count == 1 && left[0].commit != nil && canvas.leases.isEmpty)
    }

    @Test("Connectors: one bound inside the selection moves with it still bound; one bound from outside follows in the same commit")
    func connectorsFollow() throws {
        var canvas = try threeShapes()
        _ = try canvas.apply(.connect(shapeID: "in", spec: ShapeSpec(kind: "arrow"), from: .bound(Binding(shape: "a", anchor: .right)),
                                      to: .bound(Binding(shape: "b", anchor: .left))), by: alice)
        _ = try canvas.apply(.connect(shapeID: "out", spec: ShapeSpec(kind: "line"), from: .bound(Binding(shape: "c", anchor: .center)),
                                      to: .bound(Binding(shape: "a", anchor: .center))), by: alice)
        let live = try canvas.apply(.moveMany(["a", "b", "in"], phase: .begin, translation: .zero), by: bob)
        #expect(live.changed.map(\.id).contains("out"))
        let end = try canvas.apply(.moveMany(["a", "b", "in"], phase: .end, translation: Point(x: -100, y: 0), snap: false), by: bob)
        #expect(Set(end.changed.map(\.id)) == ["a", "b", "in", "out"])
        let inside = try #require(canvas.shape("in")), outside = try #require(canvas.shape("out"))
        #expect(inside.from?.shape == "a" && inside.to?.shape == "b" && near(inside.endpoints.from, Point(x: 250, y: 300)))
        #expect(near(outside.endpoints.to, Point(x: 200, y: 300)))
    }

    @Test("On a layout canvas each moved shape takes the free cell nearest its centre")
    func layoutCells() throws {
        var canvas = try makeCanvas { $0.layout = .flexible(rows: 2, columns: 2); $0.layoutPadding = 10 }
        try canvas.add("p", at: Point(x: 250, y: 250))
        try canvas.add("q", at: Point(x: 750, y: 250))
        _ = try canvas.apply(.moveMany(["p", "q"], phase: nil, translation: Point(x: 0, y: 500), snap: false), by: alice)
        let grid = canvas.layout!
        #expect(canvas.shapes.map { grid.cell(at: $0.center).row } == [1, 1])
        #expect(Set(canvas.shapes.map { grid.cell(at: $0.center).column }) == [0, 1])
    }
}
