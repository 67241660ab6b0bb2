import Testing

@testable import SnapboardCore

/// An op that changes nothing commits nothing (PROTOCOL.md P6, P14): no seq, no effect to log, no undo step.
@Suite("Nothing commits by accident (P14)")
struct UnchangedTests {
    static let identities: [(String, @Sendable (GesturePhase?) -> CanvasOp)] = [
        ("move by 0, 0", { .move("a", phase: $0, translation: .zero) }),
        ("exact move by 0, 0", { .move("a", phase: $0, translation: .zero, snap: false) }),
        ("scale by 1 turning 0", { .scale("a", phase: $0, factor: 1, anchor: Point(x: 280, y: 310), radians: 0) }),
        ("rotate by 0", { .rotate("a", phase: $0, radians: 0) }),
    ]

    @Test("[P14] An identity end commits nothing: the shape goes back to its committed z and the lease ends", arguments: identities)
    func identityEnd(_ name: String, _ op: @Sendable (GesturePhase?) -> CanvasOp) throws {
        var canvas = try twoShapes()
        let committed = canvas.shape("a")!
        #expect(committed.z == 0)
        let begun = try canvas.apply(op(.begin), by: alice)
        #expect(begun.changed.first?.z == 2)
        let end = try canvas.apply(op(.end), by: alice)
        #expect(end.commit == nil && end.unchanged)
        #expect(end.seq == 2 && canvas.seq == 2)
        #expect(end.changed == [committed] && canvas.shape("a") == committed)
        #expect(canvas.leases.isEmpty)
        // The z the begin took is given back: the next shape stacks where it would have.
        #expect(try canvas.add("c", at: Point(x: 500, y: 100)).z == 2)
    }

    @Test("[P14] A one-shot identity commits nothing and leaves the shape where it was", arguments: identities)
    func identityOneShot(_ name: String, _ op: @Sendable (GesturePhase?) -> CanvasOp) throws {
        var canvas = try twoShapes()
        let committed = canvas.shape("a")!
        let outcome = try canvas.apply(op(nil), by: alice)
        #expect(outcome.commit == nil && outcome.unchanged && canvas.seq == 2)
        #expect(canvas.shape("a") == committed && canvas.leases.isEmpty)
    }

    @Test("[P14] A drag out and back to exactly 0, 0 commits nothing, even where grid snapping would move the shape")
    func dragOutAndBack() throws {
        var canvas = try makeCanvas(grid: true)
        try canvas.add("a", at: Point(x: 300, y: 300))
        // 3 units off the gridline at 300, well inside the 5-unit threshold.
        _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: 3, y: 0), snap: false), by: alice)
        let committed = canvas.shape("a")!
        #expect(committed.center == Point(x: 303, y: 300) && canvas.seq == 2)
        // Snapping does engage there: a move by half a unit lands on the gridline and commits.
        var probe = canvas
        #expect(try probe.apply(.move("a", phase: nil, translation: Point(x: 0.5, y: 0)), by: alice).commit != nil)
        #expect(probe.shape("a")!.center.x == 300)

        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 37, y: 12)), by: alice)
        let back = try canvas.apply(.move("a", phase: .update, translation: .zero), by: alice)
        #expect(back.changed.first?.center == committed.center && back.guides.isEmpty)
        let end = try canvas.apply(.move("a", phase: .end, translation: .zero), by: alice)
        #expect(end.commit == nil && end.unchanged && canvas.seq == 2)
        #expect(canvas.shape("a") == committed)
    }

    @Test("[P14] A nudge against the edge of a bounded canvas commits nothing; a nudge away from it commits")
    func nudgeAgainstEdge() throws {
        var canvas = try makeCanvas()
        try canvas.add("a", at: Point(x: 500, y: 500), w: 77.7, h: 77.7)
        try canvas.add("b", at: Point(x: 200, y: 200))
        // Pushed past the right edge, a is kept in with its right edge on it, its centre on no whole number.
        try canvas.place("a", center: Point(x: 980, y: 433.3))
        let committed = canvas.shape("a")!
        #expect(abs(committed.bounds.maxX - 1000) < 1e-9 && committed.center.x != 980)
        let seq = canvas.seq
        for dx in [1.0, 0.001, 250] {
            let against = try canvas.apply(.move("a", phase: nil, translation: Point(x: dx, y: 0), snap: false), by: alice)
            #expect(against.commit == nil && against.unchanged && canvas.seq == seq)
            #expect(canvas.shape("a") == committed)
        }
        let away = try canvas.apply(.move("a", phase: nil, translation: Point(x: -1, y: 0), snap: false), by: alice)
        guard case .place(let placement, let before?)? = away.commit else { throw CancellationError() }
        #expect(away.seq == seq + 1 && before == Placement(of: committed))
        #expect(abs(placement.center.x - (committed.center.x - 1)) < 1e-9 && placement.center.y == committed.center.y)
    }

    @Test("[P14] A real move still commits, brought to the front")
    func realMoveCommits() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        let end = try canvas.apply(.move("a", phase: .end, translation: Point(x: 50, y: 0)), by: alice)
        guard case .place(let placement, _)? = end.commit else { throw CancellationError() }
        #expect(!end.unchanged && end.seq == 3 && placement.center == Point(x: 350, y: 300) && placement.z == 2)
    }

    @Test("[P14] An identity end after a re-based begin commits what the gesture did before it")
    func identityAfterRebase() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 50, y: 0)), by: alice)
        // Switching to a pinch re-bases on the live state; a pinch that ends at factor 1 keeps the drag.
        _ = try canvas.apply(.scale("a", phase: .begin, factor: 1, anchor: nil), by: alice)
        let end = try canvas.apply(.scale("a", phase: .end, factor: 1, anchor: nil), by: alice)
        guard case .place(let placement, let before?)? = end.commit else { throw CancellationError() }
        #expect(placement.center == Point(x: 350, y: 300) && before.center == Point(x: 300, y: 300) && canvas.seq == 3)
    }

    @Test("[P14] A lease that expires, or is abandoned, with its shape back where it began commits nothing")
    func expiredAtIdentity() throws {
        var canvas = try twoShapes()
        let a = canvas.shape("a")!, b = canvas.shape("b")!
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 40, y: 0)), by: alice)
        _ = try canvas.apply(.move("a", phase: .update, translation: .zero), by: alice)
        let expired = canvas.endGesture(on: "a")
        #expect(expired?.commit == nil && expired?.unchanged == true && expired?.changed == [a])
        _ = try canvas.apply(.rotate("b", phase: .begin, radians: 0), by: bob)
        _ = try canvas.apply(.rotate("b", phase: .update, radians: 0.5), by: bob)
        _ = try canvas.apply(.rotate("b", phase: .update, radians: 0), by: bob)
        let abandoned = canvas.endGestures(ownedBy: "bob")
        #expect(abandoned.count == 1 && abandoned[0].commit == nil && abandoned[0].unchanged && abandoned[0].changed == [b])
        #expect(canvas.seq == 2 && canvas.shape("a") == a && canvas.shape("b") == b && canvas.leases.isEmpty)
    }

    @Test("[P3] On a layout canvas a drop that fits the shape back into its own cell commits nothing")
    func layoutSameCell() throws {
        var canvas = try makeCanvas { $0.layout = .flexible(rows: 4, columns: 4); $0.layoutPadding = 10 }
        let tapped = try canvas.add("a", at: Point(x: 130, y: 130))
        let outcome = try canvas.apply(.move("a", phase: nil, translation: Point(x: 40, y: -30)), by: alice)
        #expect(outcome.commit == nil && outcome.unchanged && canvas.seq == 1 && canvas.shape("a") == tapped)
    }

    @Test("Replaying the commits of a session full of no-ops gives the committed canvas")
    func replayUnaffected() throws {
        let start = try twoShapes(grid: true)
        var canvas = start
        var log: [CommittedOp] = []
        func run(_ op: CanvasOp, _ who: Participant = alice) throws {
            let outcome = try canvas.apply(op, by: who)
            if let commit = outcome.commit { log.append(commit) }
            #expect(outcome.commit == nil || !outcome.unchanged)
        }
        try run(.move("a", phase: .begin, translation: .zero))
        try run(.move("a", phase: .update, translation: Point(x: 120, y: 40)))
        try run(.move("a", phase: .end, translation: .zero))
        try run(.move("b", phase: nil, translation: Point(x: 33, y: -12)))
        try run(.rotate("a", phase: nil, radians: 0))
        try run(.scale("b", phase: .begin, factor: 1, anchor: nil), bob)
        try run(.scale("b", phase: .update, factor: 1.5, anchor: nil), bob)
        try run(.scale("b", phase: .end, factor: 1.5, anchor: nil), bob)
        try run(.move("a", phase: nil, translation: .zero, snap: false))
        #expect(log.count == 2 && canvas.seq == start.seq + 2)
        var replayed = start
        replayed.replay(contentsOf: log)
        #expect(replayed.committedSnapshot == canvas.committedSnapshot)
    }
}
