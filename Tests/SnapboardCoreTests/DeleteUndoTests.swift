import Testing

@testable import SnapboardCore

@Suite("Delete and reverting effects")
struct DeleteUndoTests {
    @Test("A delete removes every named shape at once, or, when one cannot go, none")
    func deleteAllOrNone() throws {
        var canvas = try twoShapes()
        try canvas.add("c", at: Point(x: 500, y: 100))
        #expect(throws: Rejection(.unknownShape, "no shape nope")) { try canvas.apply(.delete(["a", "nope"]), by: alice) }
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: bob)
        #expect(throws: Rejection(.shapeLocked, "another session is changing shape b")) { try canvas.apply(.delete(["a", "b"]), by: alice) }
        #expect(throws: Rejection(.outOfRange, "delete names 1–1000 shapes")) { try canvas.apply(.delete([]), by: alice) }
        #expect(canvas.count == 3 && canvas.seq == 3)
        let a = try #require(canvas.shape("a"))
        let out = try canvas.apply(.delete(["a", "c", "a"]), by: alice)
        #expect(out.removed == ["a", "c"] && out.seq == 4 && canvas.count == 1)
        guard case .remove(let gone)? = out.commit else { throw CancellationError() }
        #expect(gone.map(\.id) == ["a", "c"] && gone[0] == a)
        // The lease holder may delete what it drags: its gesture ends with the shape.
        let own = try canvas.apply(.delete(["b"]), by: bob)
        #expect(own.removed == ["b"] && canvas.leases.isEmpty && canvas.count == 0)
        #expect(throws: Rejection(.unknownShape, "no shape b")) { try canvas.apply(.move("b", phase: .update, translation: .zero), by: bob) }
    }

    @Test("Deleted slots are reused; the snapping indexes forget the deleted shape's edges")
    func deletedEdgesLeaveTheIndex() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.delete(["b"]), by: alice)
        try canvas.add("d", at: Point(x: 100, y: 900))
        // b's left edge was at 650: a move of a near it no longer snaps there.
        let near = try canvas.apply(.move("a", phase: nil, translation: Point(x: 298, y: 0)), by: alice)
        #expect(near.changed[0].center.x == 598)
        #expect(canvas.store.slots.count == 2 && Set(canvas.shapes.map(\.id)) == ["a", "d"])
    }

    @Test("Replaying the effects of deletes and restores gives the same canvas")
    func replayDeletes() throws {
        var canvas = try twoShapes()
        var effects: [CommittedOp] = []
        let start = canvas.committedSnapshot
        effects.append(try canvas.apply(.delete(["a"]), by: alice).commit!)
        let (undo, skipped) = canvas.reverting(effects[0])
        #expect(skipped.isEmpty)
        effects.append(canvas.apply(effect: try #require(undo)).commit!)
        effects.append(try canvas.apply(.clear, by: alice).commit!)
        effects.append(canvas.apply(effect: try #require(canvas.reverting(effects[2]).effect)).commit!)
        #expect(canvas.shapes.map(\.id) == ["a", "b"])
        var again = try Canvas(snapshot: start)
        for e in effects { again.replay(e) }
        #expect(again.committedSnapshot == canvas.committedSnapshot)
    }

    @Test("Reverting leaves alone what changed since, what is gone, what is dragged, and ids taken again")
    func revertingConflicts() throws {
        var canvas = try twoShapes()
        let moveA = try canvas.apply(.move("a", phase: nil, translation: Point(x: 40, y: 0)), by: alice).commit!
        let moveB = try canvas.apply(.move("b", phase: nil, translation: Point(x: -40, y: 0)), by: alice).commit!
        guard case .place(_, let before?) = moveA else { throw CancellationError() }
        #expect(before.center == Point(x: 300, y: 300))
        // Undoing the move puts a back where it was before; nothing else moved it.
        let back = canvas.reverting(moveA)
        guard case .place(let placement, _)? = back.effect else { throw CancellationError() }
        #expect(placement.center == Point(x: 300, y: 300) && back.skipped.isEmpty)
        // Bob moves b afterwards: alice's move of b can no longer be undone.
        _ = try canvas.apply(.move("b", phase: nil, translation: Point(x: 0, y: 30)), by: bob)
        #expect(canvas.reverting(moveB).effect == nil)
        #expect(canvas.reverting(moveB).skipped.map(\.code) == [.changedSince])
        // A shape under someone's gesture is left alone; a deleted one is unknown.
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: bob)
        #expect(canvas.reverting(moveA).skipped.map(\.code) == [.shapeLocked])
        _ = try canvas.apply(.delete(["a"]), by: bob)
        #expect(canvas.reverting(moveA).skipped.map(\.code) == [.unknownShape])
        // Restoring a clear skips ids that were taken again, and brings back the rest.
        try canvas.add("c", at: Point(x: 500, y: 100))
        let clear = try canvas.apply(.clear, by: alice).commit!
        try canvas.add("b", at: Point(x: 100, y: 100))
        let undoClear = canvas.reverting(clear)
        guard case .restore(let shapes)? = undoClear.effect else { throw CancellationError() }
        #expect(shapes.map(\.id) == ["c"])
        #expect(undoClear.skipped.map(\.shape) == ["b"])
    }
}
