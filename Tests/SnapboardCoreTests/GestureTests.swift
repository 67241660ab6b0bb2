import Testing

@testable import SnapboardCore

@Suite("Gestures (seeds 001 and 004)")
struct GestureTests {
    @Test("A move's begin brings the shape to the front (seed 001)")
    func beginBringsToFront() throws {
        var canvas = try twoShapes()
        #expect(canvas.shape("a")!.z < canvas.shape("b")!.z)
        let begin = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        #expect(canvas.shape("a")!.z > canvas.shape("b")!.z)
        #expect(begin.commit == nil && begin.changed.first?.z == canvas.shape("a")!.z)
        #expect(canvas.shapes.last?.id == "a")
    }

    @Test("Parameters are cumulative since begin, so repeating an update changes nothing")
    func updatesAreIdempotent() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: -20, y: 10)), by: alice)
        let once = canvas.shape("b")
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: -20, y: 10)), by: alice)
        #expect(canvas.shape("b") == once)
        #expect(once?.center == Point(x: 680, y: 710))
    }

    @Test("A pinch keeps the point under the fingers fixed (seed 004's pinch drifted)")
    func pinchStaysUnderFingers() throws {
        var canvas = try twoShapes()
        let anchor = Point(x: 320, y: 290)  // off-centre, inside shape a
        let before = canvas.shape("a")!
        // The local point under the fingers, before.
        let local = before.transform.inverseForTest.apply(anchor)
        _ = try canvas.apply(.scale("a", phase: .begin, factor: 1, anchor: anchor), by: alice)
        _ = try canvas.apply(.scale("a", phase: .update, factor: 1.8, anchor: anchor), by: alice)
        let after = canvas.shape("a")!
        #expect(after.scale == 1.8)
        let p = after.transform.apply(local)
        #expect(abs(p.x - anchor.x) < 1e-9 && abs(p.y - anchor.y) < 1e-9)
    }

    @Test("A two-finger pinch that also turns keeps the point between the fingers under them")
    func pinchAndTurnStayUnderFingers() throws {
        var canvas = try twoShapes()
        let anchor = Point(x: 320, y: 290)
        let local = canvas.shape("a")!.transform.inverseForTest.apply(anchor)
        let degree = Double.pi / 180
        _ = try canvas.apply(.scale("a", phase: .begin, factor: 1, anchor: anchor), by: alice)
        let turned = try canvas.apply(.scale("a", phase: .update, factor: 1.5, anchor: anchor, radians: 40 * degree), by: alice)
        let after = canvas.shape("a")!
        #expect(after.scale == 1.5 && abs(after.rotation - 40 * degree) < 1e-12)
        let p = after.transform.apply(local)
        #expect(abs(p.x - anchor.x) < 1e-9 && abs(p.y - anchor.y) < 1e-9)
        #expect(turned.haptics.isEmpty)
        // Near a step the turn snaps like a rotate, with its haptic, and the anchor still holds.
        let snapped = try canvas.apply(.scale("a", phase: .update, factor: 1.5, anchor: anchor, radians: 44 * degree), by: alice)
        #expect(abs(canvas.shape("a")!.rotation - 45 * degree) < 1e-12)
        #expect(snapped.haptics == [Haptic(reason: .angle)])
        let q = canvas.shape("a")!.transform.apply(local)
        #expect(abs(q.x - anchor.x) < 1e-9 && abs(q.y - anchor.y) < 1e-9)
    }

    @Test("The scale factor is clamped to the canvas's min and max sizes, and the anchor still holds")
    func scaleClamped() throws {
        var canvas = try makeCanvas { $0.minSize = 20; $0.maxSize = 300 }
        try canvas.add("a", at: Point(x: 500, y: 500))
        _ = try canvas.apply(.scale("a", phase: nil, factor: 10, anchor: Point(x: 500, y: 500)), by: alice)
        #expect(canvas.shape("a")!.scale == 3)
        _ = try canvas.apply(.scale("a", phase: nil, factor: 0.001, anchor: nil), by: alice)
        #expect(canvas.shape("a")!.scale == 0.2)
    }

    @Test("A rotation snaps to multiples of 15° within 3°, with one haptic on engage")
    func rotationSnaps() throws {
        var canvas = try twoShapes()
        let degree = Double.pi / 180
        _ = try canvas.apply(.rotate("a", phase: .begin, radians: 0), by: alice)
        let near = try canvas.apply(.rotate("a", phase: .update, radians: 13 * degree), by: alice)
        #expect(abs(canvas.shape("a")!.rotation - 15 * degree) < 1e-12)
        #expect(near.haptics == [Haptic(reason: .angle)])
        let still = try canvas.apply(.rotate("a", phase: .update, radians: 17 * degree), by: alice)
        #expect(still.haptics.isEmpty)
        _ = try canvas.apply(.rotate("a", phase: .update, radians: 22 * degree), by: alice)
        #expect(abs(canvas.shape("a")!.rotation - 22 * degree) < 1e-12)
        let negative = try canvas.apply(.rotate("a", phase: .end, radians: -29 * degree), by: alice)
        #expect(abs(canvas.shape("a")!.rotation - (2 * .pi - 30 * degree)) < 1e-12)
        #expect(negative.haptics.count == 1 && negative.commit != nil)
    }

    @Test("Moving a scaled and rotated shape follows the finger in canvas space (seed 004's pan bug)")
    func panAfterScaleAndRotate() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.scale("a", phase: nil, factor: 2.5, anchor: nil), by: alice)
        _ = try canvas.apply(.rotate("a", phase: nil, radians: 1.1), by: alice)
        let before = canvas.shape("a")!.center
        _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: 37, y: -11)), by: Participant(id: "alice", zoom: 100))
        #expect(canvas.shape("a")!.center == before + Point(x: 37, y: -11))
    }

    @Test("Another session's gesture on a leased shape is refused with shape_locked")
    func leaseConflict() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        expectRejection(.shapeLocked) { _ = try canvas.apply(.rotate("a", phase: .begin, radians: 1), by: bob) }
        expectRejection(.shapeLocked) { _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: 1, y: 1)), by: bob) }
        #expect(canvas.leases == ["a": "alice"])
    }

    @Test("An update refused mid-gesture (another session's, or of another kind) leaves the gesture as it was")
    func refusedUpdateKeepsTheGesture() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 30, y: 0)), by: alice)
        let version = canvas.leaseVersion
        expectRejection(.shapeLocked) { _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 90, y: 0)), by: bob) }
        expectRejection(.noGesture) { _ = try canvas.apply(.rotate("a", phase: .update, radians: 1), by: alice) }
        expectRejection(.noGesture) { _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: 5, y: 0)), by: alice) }
        #expect(canvas.leases == ["a": "alice"] && canvas.leaseCount == 1 && canvas.leaseVersion == version)
        let before = canvas.shape("a")!.center
        _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 40, y: 0)), by: alice)
        #expect(canvas.shape("a")!.center == before + Point(x: 10, y: 0), "the update is measured from the gesture's origin, as before")
    }

    @Test("The lease holders are listed in the order of their shape ids, whatever order the gestures began in")
    func leaseHoldersInShapeOrder() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: bob)
        _ = try canvas.apply(.rotate("a", phase: .begin, radians: 0), by: alice)
        #expect(canvas.leaseHolders.map(\.shape) == ["a", "b"] && canvas.leaseHolders.map(\.owner) == ["alice", "bob"])
        _ = try canvas.apply(.rotate("a", phase: .end, radians: 0), by: alice)
        #expect(canvas.leaseHolders.map(\.shape) == ["b"] && canvas.leases == ["b": "bob"])
        #expect(canvas.leaseHolder(of: "b") == "bob" && canvas.leaseHolder(of: "a") == nil && canvas.leaseHolder(of: "nope") == nil)
    }

    @Test("Ending the first of three gestures leaves the other two held and dragged from their own origins")
    func endingOneOfSeveral() throws {
        var canvas = try makeCanvas()
        try canvas.add("a", at: Point(x: 200, y: 200))
        try canvas.add("b", at: Point(x: 500, y: 800))
        try canvas.add("c", at: Point(x: 800, y: 500))
        let owners = ["a": alice, "b": bob, "c": alice]
        for id in ["a", "b", "c"] { _ = try canvas.apply(.move(id, phase: .begin, translation: .zero), by: owners[id]!) }
        let version = canvas.leaseVersion
        let b = canvas.shape("b")!.center, c = canvas.shape("c")!.center
        _ = try canvas.apply(.move("a", phase: .end, translation: Point(x: 0, y: 64)), by: alice)
        #expect(canvas.leases == ["b": "bob", "c": "alice"] && canvas.leaseCount == 2 && canvas.leaseVersion != version)
        _ = try canvas.apply(.move("c", phase: .update, translation: Point(x: 0, y: 13)), by: alice)
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: 0, y: -11)), by: bob)
        #expect(canvas.shape("c")!.center == c + Point(x: 0, y: 13) && canvas.shape("b")!.center == b + Point(x: 0, y: -11))
        expectRejection(.noGesture) { _ = try canvas.apply(.move("a", phase: .update, translation: .zero), by: alice) }
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: bob)
        #expect(canvas.leaseHolders.map(\.shape) == ["a", "b", "c"] && canvas.leaseHolders.map(\.owner) == ["bob", "bob", "alice"])
    }

    @Test("An update or end without a begin is refused with no_gesture; so is an update of another kind")
    func noGesture() throws {
        var canvas = try twoShapes()
        for op in [CanvasOp.move("a", phase: .update, translation: .zero), .rotate("a", phase: .end, radians: 0)] {
            expectRejection(.noGesture) { _ = try canvas.apply(op, by: alice) }
        }
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        expectRejection(.noGesture) { _ = try canvas.apply(.scale("a", phase: .update, factor: 2, anchor: nil), by: alice) }
    }

    @Test("A begin by the lease holder re-bases the gesture on the live state, so nothing jumps")
    func rebegin() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: 20, y: 0)), by: alice)
        _ = try canvas.apply(.scale("b", phase: .begin, factor: 1, anchor: nil), by: alice)
        _ = try canvas.apply(.scale("b", phase: .end, factor: 2, anchor: nil), by: alice)
        #expect(canvas.shape("b")!.center == Point(x: 720, y: 700))
        #expect(canvas.shape("b")!.scale == 2)
        #expect(canvas.leases.isEmpty)
    }

    @Test("A clear wins against running gestures: their later updates get unknown_shape")
    func clearWins() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        let clear = try canvas.apply(.clear, by: bob)
        guard case .clear(let removed)? = clear.commit else { throw CancellationError() }
        #expect(clear.cleared && canvas.count == 0 && canvas.leases.isEmpty)
        #expect(removed.map(\.id) == ["a", "b"] && removed[0].center == Point(x: 300, y: 300), "as committed, not mid-gesture")
        expectRejection(.unknownShape) { _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 5, y: 5)), by: alice) }
    }

    @Test("Ending an owner's gestures commits each shape where it was last put")
    func abandonCommits() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 33, y: 0)), by: Participant(id: "alice", zoom: 100))
        _ = try canvas.apply(.rotate("b", phase: .begin, radians: 0), by: bob)
        let seq = canvas.seq
        let ended = canvas.endGestures(ownedBy: "alice")
        #expect(ended.count == 1 && ended[0].seq == seq + 1)
        guard case .place(let placement, let before?)? = ended[0].commit else { throw CancellationError() }
        #expect(placement == Placement(of: canvas.shape("a")!) && before.center == Point(x: 300, y: 300))
        #expect(canvas.shape("a")!.center.x == 333)
        #expect(canvas.leases == ["b": "bob"])
        // b was picked up and never turned: it ends, and nothing commits (P14).
        let b = canvas.endGesture(on: "b")
        #expect(b?.commit == nil && b?.unchanged == true && canvas.seq == seq + 1)
        #expect(canvas.endGesture(on: "b") == nil)
    }

    @Test("On a layout canvas a finished move fits the shape to the cell under its centre")
    func layoutCanvasFitsCells() throws {
        var canvas = try makeCanvas { $0.layout = .flexible(rows: 4, columns: 4); $0.layoutPadding = 10 }
        let layout = canvas.layout!
        let tapped = try canvas.add("a", at: Point(x: 130, y: 130))
        #expect(tapped.center == layout.cellRect(row: 0, column: 0)!.center)
        #expect(tapped.size == layout.cellSize)
        _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: 500, y: 260)), by: alice)
        let cell = layout.snappedFrame(centeredAt: Point(x: 130 + 500, y: 130 + 260))
        #expect(canvas.shape("a")!.center == cell.center)
    }
}

extension AffineTransform {
    /// The inverse map, for checking where a point came from.
    var inverseForTest: AffineTransform {
        let det = a * d - b * c
        let ia = d / det, ib = -b / det, ic = -c / det, id = a / det
        return AffineTransform(a: ia, b: ib, c: ic, d: id, tx: -(ia * tx + ic * ty), ty: -(ib * tx + id * ty))
    }
}
