import Testing

@testable import SnapboardCore

extension Outcome {
    var gaps: [GapGuide] { events.compactMap { if case .gap(let g) = $0 { g } else { nil } } }
}

@Suite("Equal-spacing (gap) snapping")
struct GapSnappingTests {
    /// A (150…250) and B (550…650) in a row at y 500, and M (350…450) below them at y 800: 100 × 100 each.
    func row(gaps: Bool = true) throws -> Canvas {
        var canvas = try makeCanvas { $0.snapping.gaps = gaps }
        try canvas.add("A", at: Point(x: 200, y: 500))
        try canvas.add("B", at: Point(x: 600, y: 500))
        try canvas.add("M", at: Point(x: 400, y: 800))
        return canvas
    }

    @Test("Between two neighbours a shape snaps to the middle: equal gaps on both sides, shown to everyone, one haptic")
    func centredBetweenNeighbours() throws {
        var canvas = try row()
        _ = try canvas.apply(.move("M", phase: .begin, translation: .zero), by: alice)
        // M's left edge at 347: the middle (350) is 3 away.
        let out = try canvas.apply(.move("M", phase: .update, translation: Point(x: -3, y: -290)), by: alice)
        #expect(canvas.shape("M")!.center.x == 400)
        let gap = try #require(out.gaps.first)
        #expect(gap.axis == .x && gap.gap == 100)
        #expect(gap.segments.map { [$0.from, $0.to] } == [[250, 350], [450, 550]])
        #expect(gap.segments.allSatisfy { $0.at > 450 && $0.at < 560 }, "drawn where the shapes overlap across")
        #expect(out.haptics == [Haptic(reason: .gap)])
        // It holds within the release distance without another haptic, and lets go past it.
        let held = try canvas.apply(.move("M", phase: .update, translation: Point(x: 4, y: -290)), by: alice)
        #expect(canvas.shape("M")!.center.x == 400 && held.haptics.isEmpty && held.gaps.count == 1)
        let gone = try canvas.apply(.move("M", phase: .update, translation: Point(x: 12, y: -290)), by: alice)
        #expect(canvas.shape("M")!.center.x == 412 && gone.gaps.isEmpty)
        // The gesture's end clears it, as it does guides.
        let end = try canvas.apply(.move("M", phase: .end, translation: Point(x: -3, y: -290)), by: alice)
        #expect(end.gaps.isEmpty && canvas.shape("M")!.center.x == 400)
    }

    @Test("At the end of a row a shape snaps to the gap its neighbours already have, on either side")
    func rowEnd() throws {
        var canvas = try makeCanvas()
        try canvas.add("A", at: Point(x: 300, y: 500))
        try canvas.add("B", at: Point(x: 500, y: 500))  // gap 100 from A
        try canvas.add("M", at: Point(x: 900, y: 800))
        _ = try canvas.apply(.move("M", phase: .begin, translation: .zero), by: alice)
        // M's left edge at 653: B's right edge (550) plus the gap (100) is 3 away.
        let right = try canvas.apply(.move("M", phase: .update, translation: Point(x: -197, y: -296)), by: alice)
        #expect(canvas.shape("M")!.center.x == 700)
        #expect(right.gaps.first?.segments.map { [$0.from, $0.to] } == [[350, 450], [550, 650]])
        // On the other side: M's right edge at 152, 2 from A's left edge (250) minus the gap.
        let left = try canvas.apply(.move("M", phase: .update, translation: Point(x: -798, y: -296)), by: alice)
        #expect(canvas.shape("M")!.center.x == 100)
        #expect(left.gaps.first?.segments.map { [$0.from, $0.to] } == [[150, 250], [350, 450]])
    }

    @Test("Vertically the neighbours are the shapes in the moved shape's column")
    func column() throws {
        var canvas = try makeCanvas()
        try canvas.add("A", at: Point(x: 500, y: 200))
        try canvas.add("B", at: Point(x: 500, y: 600))
        try canvas.add("M", at: Point(x: 800, y: 400))
        _ = try canvas.apply(.move("M", phase: .begin, translation: .zero), by: alice)
        let out = try canvas.apply(.move("M", phase: .update, translation: Point(x: -310, y: 2)), by: alice)
        #expect(canvas.shape("M")!.center.y == 400)
        #expect(out.gaps.first?.axis == .y && out.gaps.first?.gap == 100)
    }

    @Test("Shapes out of the row, under another gesture, or with gaps off do not count")
    func whatDoesNotCount() throws {
        var off = try row(gaps: false)
        _ = try off.apply(.move("M", phase: .begin, translation: .zero), by: alice)
        _ = try off.apply(.move("M", phase: .update, translation: Point(x: -3, y: -290)), by: alice)
        #expect(off.shape("M")!.center.x == 397)
        // Out of the row: M stays at y 800, below A and B.
        var below = try row()
        _ = try below.apply(.move("M", phase: .begin, translation: .zero), by: alice)
        _ = try below.apply(.move("M", phase: .update, translation: Point(x: -3, y: 0)), by: alice)
        #expect(below.shape("M")!.center.x == 397)
        // B under bob's gesture is no neighbour.
        var dragged = try row()
        _ = try dragged.apply(.move("B", phase: .begin, translation: .zero), by: bob)
        _ = try dragged.apply(.move("M", phase: .begin, translation: .zero), by: alice)
        _ = try dragged.apply(.move("M", phase: .update, translation: Point(x: -3, y: -290)), by: alice)
        #expect(dragged.shape("M")!.center.x == 397)
    }

    @Test("An edge beats an equal gap at the same distance")
    func edgeWinsTies() throws {
        var canvas = try row()
        // C's left edge at 350 coincides with the gap target: the snap is to C's edge.
        try canvas.add("C", at: Point(x: 400, y: 100))
        _ = try canvas.apply(.move("M", phase: .begin, translation: .zero), by: alice)
        let out = try canvas.apply(.move("M", phase: .update, translation: Point(x: -3, y: -290)), by: alice)
        #expect(canvas.shape("M")!.center.x == 400)
        #expect(out.gaps.isEmpty && out.guides.contains { $0.axis == .x })
    }
}

@Suite("Rules settled in protocol 1.1")
struct SettledRuleTests {
    @Test("A tap exactly on the far edge is on the canvas and snaps to the outermost interior line; past it is out of bounds")
    func farEdgeTap() throws {
        var canvas = try makeCanvas()
        let out = try canvas.apply(.snap(at: Point(x: 1000, y: 1000), shapeID: nil, spec: ShapeSpec()), by: alice)
        #expect(out.changed.first?.center == Point(x: 900, y: 900))
        #expect(throws: Rejection(.outOfBounds, "tap lies outside the canvas")) {
            try canvas.apply(.snap(at: Point(x: 1000.000001, y: 1000), shapeID: nil, spec: ShapeSpec()), by: alice)
        }
    }

    @Test("A pinch or a twist never snaps the shape's position, however close its edges come to another's")
    func noPositionSnapWhilePinched() throws {
        var canvas = try twoShapes()
        try canvas.place("a", center: Point(x: 548, y: 700))  // right edge 598, 52 from b's left edge (650)
        let out = try canvas.apply(.scale("a", phase: nil, factor: 2.02, anchor: nil), by: alice)
        let a = try #require(canvas.shape("a"))
        #expect(a.center == Point(x: 548, y: 700) && a.scale == 2.02, "the right edge (649) stays 1 from b's: no snap")
        #expect(out.guides.isEmpty && out.gaps.isEmpty)
    }
}
