import PropertyBased
import Testing

@testable import SnapboardCore

@Suite("Edge snapping (seed 003)")
struct SnappingTests {
    @Test("A left edge within the threshold of another shape's right edge snaps onto it, with a guide and one haptic")
    func engagesWithinThreshold() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        // b's left edge is at 650; a's right edge is at 350. Move left by 296.5: left edge at 353.5, 3.5 away.
        let out = try canvas.apply(.move("b", phase: .update, translation: Point(x: -296.5, y: 13)), by: alice)
        #expect(canvas.shape("b")!.center.x == 400)
        #expect(canvas.shape("b")!.center.y == 713)  // y is independent and found nothing
        #expect(out.haptics == [Haptic(reason: .edge)])
        let guide = try #require(out.guides.first)
        #expect(guide.axis == .x && guide.at == 350 && guide.target == .shape("a"))
        #expect(guide.from == 250 && guide.to == 763)  // from a's top to b's bottom
        #expect(out.guides.count == 1)
    }

    @Test("Picking a shape up leaves it exactly where it was, even within the threshold of an edge")
    func beginDoesNotSnap() throws {
        var canvas = try twoShapes()
        try canvas.place("b", center: Point(x: 402, y: 700))  // left edge 2 from a's right edge
        let begin = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        #expect(canvas.shape("b")!.center.x == 402 && begin.events.isEmpty)
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: -0.5, y: 0)), by: alice)
        #expect(canvas.shape("b")!.center.x == 400)
    }

    @Test("Nothing snaps outside the threshold")
    func noSnapOutsideThreshold() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        let out = try canvas.apply(.move("b", phase: .update, translation: Point(x: -294.9, y: 13)), by: alice)
        #expect(canvas.shape("b")!.center.x == 405.1)
        #expect(out.events.isEmpty)
    }

    @Test("The nearest candidate wins across all three edges")
    func nearestWins() throws {
        var canvas = try twoShapes()
        try canvas.add("c", at: Point(x: 400, y: 900), w: 100, h: 100)  // centre 400: edges 350, 400, 450
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        // b's centre goes to 401 (1 from c's centre 400) while its left edge is 351 (1 from a's right 350 and c's left 350).
        // Distances tie at 1; the lower probe wins deterministically, and both put the centre at 400.
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: -299, y: 0)), by: alice)
        #expect(canvas.shape("b")!.center.x == 400)
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: -297, y: 0)), by: alice)
        // Still held by the grip: 3 < 9 from the held edge.
        #expect(canvas.shape("b")!.center.x == 400)
    }

    @Test("The grip holds an engaged snap until the release distance, then lets go; no haptic repeats while held")
    func hysteresis() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        let engage = try canvas.apply(.move("b", phase: .update, translation: Point(x: -296, y: 0)), by: alice)
        #expect(engage.haptics.count == 1)
        // 8.9 away from the edge: beyond the threshold (5) but within the release distance (9). It holds.
        let held = try canvas.apply(.move("b", phase: .update, translation: Point(x: -291.1, y: 0)), by: alice)
        #expect(canvas.shape("b")!.center.x == 400)
        #expect(held.haptics.isEmpty && held.guides.count == 1)
        // 9.5 away: released, the shape follows the finger and the guide goes.
        let released = try canvas.apply(.move("b", phase: .update, translation: Point(x: -290.5, y: 0)), by: alice)
        #expect(canvas.shape("b")!.center.x == 409.5)
        #expect(released.events.isEmpty)
        // Coming back within the threshold engages again, with a fresh haptic.
        let again = try canvas.apply(.move("b", phase: .update, translation: Point(x: -295.5, y: 0)), by: alice)
        #expect(again.haptics.count == 1)
    }

    @Test("The threshold is divided by the dragging client's zoom")
    func zoomScalesThreshold() throws {
        var canvas = try twoShapes()
        let zoomed = Participant(id: "alice", zoom: 4)  // engage within 1.25 units
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: zoomed)
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: -298, y: 0)), by: zoomed)
        #expect(canvas.shape("b")!.center.x == 402)
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: -299, y: 0)), by: zoomed)
        #expect(canvas.shape("b")!.center.x == 400)
    }

    @Test("Canvas edges and centre are candidates, with the whole canvas as the guide's extent")
    func canvasCandidates() throws {
        var canvas = try makeCanvas()
        try canvas.add("b", at: Point(x: 700, y: 700))
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        let out = try canvas.apply(.move("b", phase: .update, translation: Point(x: -197, y: 0)), by: alice)
        #expect(canvas.shape("b")!.center.x == 500)
        #expect(out.guides == [Guide(axis: .x, at: 500, from: 0, to: 1000, target: .canvas)])
    }

    @Test("Object snapping beats grid snapping on the same axis; the other axis may still snap to the grid")
    func objectBeatsGrid() throws {
        var canvas = try twoShapes(grid: true)
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        // x: b's left edge 3.5 from a's right edge, centre 3.5 from gridline 400 (same place): the object wins.
        // y: centre 703 is 3 from gridline 700 and no object is near: the grid wins.
        let out = try canvas.apply(.move("b", phase: .update, translation: Point(x: -296.5, y: 3)), by: alice)
        #expect(canvas.shape("b")!.center == Point(x: 400, y: 700))
        #expect(Set(out.guides.map(\.target)) == [.shape("a"), .grid])
        #expect(out.haptics == [Haptic(reason: .edge)])  // one haptic for the step, however many axes engaged
    }

    @Test("A grid snap gives way to an object snap that comes within the threshold")
    func gridYieldsToObject() throws {
        var canvas = try makeCanvas(grid: true)
        try canvas.add("a", at: Point(x: 300, y: 100))
        try canvas.add("b", at: Point(x: 700, y: 700), w: 80, h: 80)
        try canvas.place("a", center: Point(x: 303, y: 100))  // a's right edge at 353, off every gridline
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        // Centre 399 is 1 from gridline 400, left edge 359 is 6 from a's right edge: the grid engages.
        let grid = try canvas.apply(.move("b", phase: .update, translation: Point(x: -301, y: 0)), by: alice)
        #expect(grid.guides.first?.target == .grid)
        // Left edge 355.5 is now 2.5 from a's right edge 353: the object takes over, with a haptic.
        let object = try canvas.apply(.move("b", phase: .update, translation: Point(x: -304.5, y: 0)), by: alice)
        #expect(object.guides.first?.target == .shape("a"))
        #expect(object.haptics.count == 1)
        #expect(canvas.shape("b")!.bounds.minX == 353)
    }

    @Test("Edges come from rotated bounds")
    func rotatedBounds() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.rotate("a", phase: nil, radians: .pi / 4), by: alice)
        let half = 50 * 2.0.squareRoot()  // a rounded rect's corners are cut, so its reach is a little less
        let right = canvas.shape("a")!.bounds.maxX
        #expect(right < 300 + half && right > 300 + 50)
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: (right + 52) - 700, y: 0)), by: alice)
        #expect(canvas.shape("b")!.bounds.minX == right)
    }

    @Test("Shapes under someone else's gesture are not snap targets")
    func busyShapesAreNotTargets() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: bob)
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        let out = try canvas.apply(.move("b", phase: .update, translation: Point(x: -296.5, y: 13)), by: alice)
        #expect(canvas.shape("b")!.center.x == 403.5)
        #expect(out.events.isEmpty)
    }

    @Test("A shape is a snap target again once its gesture ends")
    func targetAgainAfterItsGesture() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: bob)
        _ = try canvas.apply(.move("a", phase: .end, translation: .zero), by: bob)
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: -296.5, y: 13)), by: alice)
        #expect(canvas.shape("b")!.center.x == 400)
    }

    @Test("Guides are cleared when the gesture ends")
    func guidesClearedOnEnd() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: -296.5, y: 0)), by: alice)
        let end = try canvas.apply(.move("b", phase: .end, translation: Point(x: -296.5, y: 0)), by: alice)
        #expect(end.guides.isEmpty && end.commit != nil)
        #expect(canvas.shape("b")!.center.x == 400)
    }

    @Test("A guide spans every shape aligned at the snapped coordinate")
    func guideSpansAlignedShapes() throws {
        var canvas = try twoShapes()
        try canvas.add("c", at: Point(x: 300, y: 900))  // also right edge at 350, far below
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        let out = try canvas.apply(.move("b", phase: .update, translation: Point(x: -297, y: -100)), by: alice)
        let guide = try #require(out.guides.first)
        #expect(guide.at == 350 && guide.from == 250 && guide.to == 950)
        #expect(guide.target == .shape("a"))  // the smallest id among aligned shapes
    }

    @Test("Property: a path that crosses a candidate back and forth inside the grip gives exactly one haptic")
    func hysteresisNeverOscillates() async {
        await propertyCheck(count: 100, input: Gen.double(in: -8.9...8.9).array(of: 1...60)) { wiggle in
            var canvas = try twoShapes()
            _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
            var haptics = try canvas.apply(.move("b", phase: .update, translation: Point(x: -300, y: 0)), by: alice).haptics.count
            for w in wiggle {
                let out = try canvas.apply(.move("b", phase: .update, translation: Point(x: -300 + w, y: 0)), by: alice)
                haptics += out.haptics.count
                #expect(canvas.shape("b")!.center.x == 400)
            }
            #expect(haptics == 1)
        }
    }

    @Test("Property: along any path, haptics come only on engage or change of target")
    func hapticsOnlyOnTransitions() async {
        await propertyCheck(count: 100, input: Gen.double(in: -320 ... -280).array(of: 1...80)) { path in
            var canvas = try twoShapes()
            _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
            var previous: Guide?
            for dx in path {
                let out = try canvas.apply(.move("b", phase: .update, translation: Point(x: dx, y: 0)), by: alice)
                let guide = out.guides.first
                let changed = guide != nil && (guide?.at != previous?.at || guide?.target != previous?.target)
                #expect(out.haptics.count == (changed ? 1 : 0))
                previous = guide
            }
        }
    }
}
