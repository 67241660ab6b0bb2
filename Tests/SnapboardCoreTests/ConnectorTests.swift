import Foundation
import PropertyBased
import Testing

@testable import SnapboardCore

private extension Canvas {
    /// Draws an arrow `id` from one end to the other.
    @discardableResult
    mutating func connect(_ id: ShapeID, _ from: EndSpec, _ to: EndSpec, kind: String = "arrow", by who: Participant = alice) throws -> Outcome {
        try apply(.connect(shapeID: id, spec: ShapeSpec(kind: kind), from: from, to: to), by: who)
    }

    @discardableResult
    mutating func dragEnd(_ id: ShapeID, _ end: ConnectorEnd, _ phase: GesturePhase?, by t: Point, who: Participant = alice) throws -> Outcome {
        try apply(.endpoint(id, end: end, phase: phase, translation: t), by: who)
    }

    @discardableResult
    mutating func drag(_ id: ShapeID, by t: Point, who: Participant = alice) throws -> Outcome {
        try apply(.move(id, phase: nil, translation: t, snap: false), by: who)
    }
}

private func near(_ p: Point, _ q: Point, _ tolerance: Double = 1e-6) -> Bool {
    abs(p.x - q.x) <= tolerance && abs(p.y - q.y) <= tolerance
}

/// Shapes `a` (300, 300) and `b` (700, 700), and an arrow `c` from `a`'s right to `b`'s left.
private func linked() throws -> Canvas {
    var canvas = try twoShapes()
    try canvas.connect("c", .bound(Binding(shape: "a", anchor: .right)), .bound(Binding(shape: "b", anchor: .left)))
    return canvas
}

@Suite("Connectors (1.7, P28)")
struct ConnectorTests {
    @Test("connect lays an arrow from anchor to anchor, bound as named, stacked on top, one commit")
    func connectBound() throws {
        var canvas = try twoShapes()
        let outcome = try canvas.connect("c", .bound(Binding(shape: "a", anchor: .right)), .bound(Binding(shape: "b", anchor: .left)))
        #expect(outcome.seq == 3)
        let c = try #require(canvas.shape("c"))
        #expect(c.kind == .arrow && c.from == Binding(shape: "a", anchor: .right) && c.to == Binding(shape: "b", anchor: .left))
        #expect(near(c.endpoints.from, Point(x: 350, y: 300)) && near(c.endpoints.to, Point(x: 650, y: 700)))
        #expect(c.size.height == Shape.connectorThickness && c.z == 2 && c.problem(in: canvas.config) == nil)
        guard case .create(let logged, _)? = outcome.commit else { throw CancellationError() }
        #expect(logged == c)
    }

    @Test("A free end binds to an anchor within reach, to the point under it on a shape, or stays where it is")
    func endsBind() throws {
        var canvas = try twoShapes()
        // 6 units from a's top anchor: within 2 × the 5-unit threshold at zoom 1.
        try canvas.connect("c", .at(Point(x: 303, y: 245)), .at(Point(x: 690, y: 720)))
        let c = try #require(canvas.shape("c"))
        #expect(c.from == Binding(shape: "a", anchor: .top) && near(c.endpoints.from, Point(x: 300, y: 250)))
        guard case .point(let u, let v)? = c.to?.anchor else { Issue.record("\(String(describing: c.to))"); return }
        #expect(c.to?.shape == "b" && abs(u + 0.1) < 1e-9 && abs(v - 0.2) < 1e-9 && near(c.endpoints.to, Point(x: 690, y: 720)))
        try canvas.connect("d", .at(Point(x: 100, y: 900)), .at(Point(x: 500, y: 500)), kind: "line")
        let d = try #require(canvas.shape("d"))
        #expect(d.kind == .line && d.from == nil && d.to == nil && near(d.endpoints.from, Point(x: 100, y: 900)))
        // Zoomed in, the reach shrinks: 6 units is too far at zoom 2.
        try canvas.apply(.connect(shapeID: "e", spec: ShapeSpec(kind: "line"), from: .at(Point(x: 303, y: 245)), to: .at(Point(x: 100, y: 100))),
                         by: Participant(id: "alice", zoom: 2))
        #expect(canvas.shape("e")?.from == nil)
    }

    @Test("A bound shape's move, scale and turn lay its connectors again in the same commit; live, they follow without committing")
    func follows() throws {
        var canvas = try linked()
        let moved = try canvas.drag("a", by: Point(x: 0, y: 100))
        #expect(moved.seq == 4 && moved.changed.map(\.id) == ["a", "c"])
        #expect(near(canvas.shape("c")!.endpoints.from, Point(x: 350, y: 400)) && near(canvas.shape("c")!.endpoints.to, Point(x: 650, y: 700)))
        _ = try canvas.apply(.rotate("b", phase: nil, radians: .pi / 2), by: alice)
        // b's left anchor turned a quarter clockwise on screen is its top.
        #expect(near(canvas.shape("c")!.endpoints.to, Point(x: 700, y: 650)))
        _ = try canvas.apply(.scale("b", phase: nil, factor: 2, anchor: nil), by: alice)
        #expect(near(canvas.shape("c")!.endpoints.to, Point(x: 700, y: 600)))

        let committed = canvas.committedSnapshot
        let live = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: bob)
        #expect(live.changed.map(\.id) == ["a", "c"])
        let update = try canvas.apply(.move("a", phase: .update, translation: Point(x: -100, y: 0), snap: false), by: bob)
        let shown = try #require(update.changed.first { $0.id == "c" })
        #expect(near(shown.endpoints.from, Point(x: 250, y: 400)) && update.commit == nil)
        #expect(canvas.committedSnapshot.shapes.first { $0.id == "c" } == committed.shapes.first { $0.id == "c" })
        let back = try canvas.apply(.move("a", phase: .end, translation: .zero), by: bob)
        #expect(back.unchanged && back.changed.map(\.id) == ["a", "c"] && canvas.committedSnapshot == committed)
    }

    @Test("Deleting a shape frees the ends bound to it where they are; undoing the delete brings the shape back, not the binding")
    func deleteFrees() throws {
        var canvas = try linked()
        let before = try #require(canvas.shape("c"))
        let deleted = try canvas.apply(.delete(["b"]), by: alice)
        #expect(deleted.removed == ["b"] && deleted.changed.map(\.id) == ["c"])
        let c = try #require(canvas.shape("c"))
        #expect(c.to == nil && c.from == before.from && near(c.endpoints.to, before.endpoints.to))
        _ = canvas.apply(effect: try #require(canvas.reverting(deleted.commit!).effect))
        #expect(canvas.shape("b") != nil && canvas.shape("c")?.to == nil)
        _ = try canvas.drag("b", by: Point(x: 10, y: 0))
        #expect(near(canvas.shape("c")!.endpoints.to, before.endpoints.to))
        // Deleting the connector itself leaves its shapes alone.
        _ = try canvas.apply(.delete(["c"]), by: alice)
        #expect(canvas.bindings.isEmpty)
    }

    @Test("Dragging an end binds it at an anchor with one haptic and guides through it, commits as one reconnect; identity commits nothing")
    func dragEnds() throws {
        var canvas = try twoShapes()
        try canvas.connect("c", .at(Point(x: 100, y: 100)), .at(Point(x: 500, y: 100)))
        let begin = try canvas.dragEnd("c", .to, .begin, by: .zero)
        #expect(begin.commit == nil)
        // From (500, 100) to 4 units off b's top anchor (700, 650).
        let first = try canvas.dragEnd("c", .to, .update, by: Point(x: 203, y: 553))
        #expect(first.haptics == [Haptic(reason: .anchor)] && first.guides.count == 2)
        #expect(first.guides.allSatisfy { $0.target == .shape("b") } && near(first.changed[0].endpoints.to, Point(x: 700, y: 650)))
        let again = try canvas.dragEnd("c", .to, .update, by: Point(x: 201, y: 551))
        #expect(again.haptics.isEmpty && again.guides.count == 2)
        let end = try canvas.dragEnd("c", .to, .end, by: Point(x: 201, y: 551))
        guard case .reconnect(let after, let before)? = end.commit else { throw CancellationError() }
        #expect(after.to == Binding(shape: "b", anchor: .top) && before.to == nil && canvas.shape("c")?.to == after.to)
        #expect(canvas.bindings["b"] == ["c"])
        // Pulled away into empty space it is free again.
        _ = try canvas.dragEnd("c", .to, nil, by: Point(x: 0, y: -400))
        #expect(canvas.shape("c")?.to == nil && canvas.bindings.isEmpty)
        let seq = canvas.seq
        let same = try canvas.dragEnd("c", .from, nil, by: .zero)
        #expect(same.unchanged && canvas.seq == seq)
    }

    @Test("A connector moved, scaled or turned as a whole lets go of its shapes")
    func wholeMoveFrees() throws {
        var canvas = try linked()
        _ = try canvas.drag("c", by: Point(x: 0, y: 50))
        let c = try #require(canvas.shape("c"))
        #expect(c.from == nil && c.to == nil && canvas.bindings.isEmpty)
        _ = try canvas.drag("a", by: Point(x: 0, y: 100))
        #expect(canvas.shape("c") == c)
    }

    @Test("Undo: of a reconnect puts the ends and bindings back; of a connect removes it even after its shapes moved")
    func undo() throws {
        var canvas = try twoShapes()
        let created = try #require(try canvas.connect("c", .bound(Binding(shape: "a", anchor: .right)), .bound(Binding(shape: "b", anchor: .left))).commit)
        let drawn = try #require(canvas.shape("c"))
        _ = try canvas.drag("b", by: Point(x: 0, y: -100))
        let dragged = try #require(try canvas.dragEnd("c", .to, nil, by: Point(x: -300, y: 100)).commit)
        #expect(canvas.shape("c")?.to == nil)
        _ = canvas.apply(effect: try #require(canvas.reverting(dragged).effect))
        #expect(canvas.shape("c")?.to == drawn.to && near(canvas.shape("c")!.endpoints.to, Point(x: 650, y: 600)))
        let (removal, skipped) = canvas.reverting(created)
        #expect(skipped.isEmpty)
        _ = canvas.apply(effect: try #require(removal))
        #expect(canvas.shape("c") == nil && canvas.bindings.isEmpty)
    }

    @Test("Refused whole: a kind that is no connector, a snapped line, a missing, connector or full shape, a bad anchor, an end off the canvas")
    func refusals() throws {
        var canvas = try linked()
        let before = canvas.committedSnapshot
        expectRejection(.badShape) { try canvas.connect("x", .at(Point(x: 1, y: 1)), .at(Point(x: 2, y: 2)), kind: "oval") }
        expectRejection(.badShape) { _ = try canvas.apply(.snap(at: Point(x: 1, y: 1), shapeID: nil, spec: ShapeSpec(kind: "arrow")), by: alice) }
        expectRejection(.unknownShape) { try canvas.connect("x", .bound(Binding(shape: "ghost", anchor: .center)), .at(Point(x: 2, y: 2))) }
        expectRejection(.badShape) { try canvas.connect("x", .bound(Binding(shape: "c", anchor: .center)), .at(Point(x: 2, y: 2))) }
        expectRejection(.outOfRange) { try canvas.connect("x", .bound(Binding(shape: "a", anchor: .point(u: 0.6, v: 0))), .at(Point(x: 2, y: 2))) }
        expectRejection(.outOfRange) { try canvas.connect("x", .bound(Binding(shape: "a", anchor: .point(u: .nan, v: 0))), .at(Point(x: 2, y: 2))) }
        expectRejection(.outOfBounds) { try canvas.connect("x", .at(Point(x: -1, y: 1)), .at(Point(x: 2, y: 2))) }
        expectRejection(.notFinite) { try canvas.connect("x", .at(Point(x: .infinity, y: 1)), .at(Point(x: 2, y: 2))) }
        expectRejection(.badShapeID) { try canvas.connect("c", .at(Point(x: 1, y: 1)), .at(Point(x: 2, y: 2))) }
        expectRejection(.badShape) { try canvas.dragEnd("a", .from, .begin, by: .zero) }
        expectRejection(.unknownShape) { try canvas.dragEnd("ghost", .from, .begin, by: .zero) }
        _ = try canvas.apply(.lock(["c"], locked: true), by: alice)
        expectRejection(.locked) { try canvas.dragEnd("c", .from, .begin, by: .zero) }
        _ = try canvas.apply(.lock(["c"], locked: false), by: alice)
        #expect(canvas.committedSnapshot.shapes == before.shapes)
    }

    @Test("A shape holds at most 100 bound ends: a bound end past that is refused, a point end stays free")
    func boundEndsCap() throws {
        var canvas = try makeCanvas { $0.maxShapes = 500 }
        try canvas.add("hub", at: Point(x: 500, y: 500))
        for i in 0..<50 {
            try canvas.connect("k\(i)", .bound(Binding(shape: "hub", anchor: .center)), .bound(Binding(shape: "hub", anchor: .top)), kind: "line")
        }
        #expect(canvas.boundEnds(on: "hub") == 100)
        expectRejection(.outOfRange) { try canvas.connect("over", .bound(Binding(shape: "hub", anchor: .left)), .at(Point(x: 10, y: 10))) }
        try canvas.connect("free", .at(Point(x: 500, y: 451)), .at(Point(x: 10, y: 10)))
        #expect(canvas.shape("free")?.from == nil)
    }

    @Test("duplicate binds copied connectors to the copies of their shapes, and keeps those bound outside the selection")
    func duplicateRebinds() throws {
        var canvas = try linked()
        try canvas.add("z", at: Point(x: 200, y: 800))
        try canvas.connect("d", .bound(Binding(shape: "z", anchor: .center)), .bound(Binding(shape: "a", anchor: .bottom)), kind: "line")
        let outcome = try canvas.apply(.duplicate(["a", "b", "c", "d"], ids: ["a2", "b2", "c2", "d2"]), by: alice)
        #expect(Set(outcome.changed.map(\.id)) == ["a2", "b2", "c2", "d2"])
        let c2 = try #require(canvas.shape("c2")), d2 = try #require(canvas.shape("d2"))
        #expect(c2.from?.shape == "a2" && c2.to?.shape == "b2" && d2.from?.shape == "z" && d2.to?.shape == "a2")
        #expect(near(c2.endpoints.from, canvas.shape("a2")!.point(of: .right)) && near(d2.endpoints.from, canvas.shape("z")!.center))
        // An undo takes every copy away, and the bindings with them.
        _ = canvas.apply(effect: try #require(canvas.reverting(outcome.commit!).effect))
        #expect(canvas.bindings["z"] == ["d"] && canvas.bindings["a2"] == nil)
    }

    @Test("Ends stay on the canvas: an anchor past the edge of an unbounded canvas is met at the edge, and the connector's centre is valid")
    func endsOnCanvas() throws {
        var canvas = try makeCanvas { $0.bounded = false }
        try canvas.add("edge", at: Point(x: 900, y: 500))
        try canvas.add("other", at: Point(x: 900, y: 100))
        try canvas.place("edge", center: Point(x: 980, y: 500))
        try canvas.place("other", center: Point(x: 980, y: 100))
        try canvas.connect("c", .bound(Binding(shape: "edge", anchor: .right)), .bound(Binding(shape: "other", anchor: .right)))
        let c = try #require(canvas.shape("c"))
        #expect(near(c.endpoints.from, Point(x: 1000, y: 500)) && near(c.endpoints.to, Point(x: 1000, y: 100)))
        #expect(canvas.committedSnapshot.problem == nil)
        _ = try canvas.drag("edge", by: Point(x: 0, y: 300))
        #expect(canvas.committedSnapshot.problem == nil && near(canvas.shape("c")!.endpoints.from, Point(x: 1000, y: 800)))
    }

    @Test("An end being dragged onto a shape lets go of it when the shape is deleted before the drag ends")
    func dragOntoDeleted() throws {
        var canvas = try twoShapes()
        try canvas.connect("c", .at(Point(x: 100, y: 100)), .at(Point(x: 500, y: 100)))
        _ = try canvas.dragEnd("c", .to, .begin, by: .zero)
        #expect(try canvas.dragEnd("c", .to, .update, by: Point(x: 200, y: 550)).changed[0].to?.shape == "b")
        let deleted = try canvas.apply(.delete(["b"]), by: bob)
        #expect(deleted.changed.map(\.id) == ["c"] && canvas.shape("c")?.to == nil && canvas.liveSnapshot.problem == nil)
        let end = try canvas.dragEnd("c", .to, .end, by: Point(x: 200, y: 550))
        #expect(canvas.shape("c")?.to == nil && canvas.bindings.isEmpty && end.seq == canvas.seq)
    }

    @Test("A clear drops every binding; its undo brings the connectors back bound")
    func clearAndUndo() throws {
        var canvas = try linked()
        let cleared = try #require(try canvas.apply(.clear, by: alice).commit)
        #expect(canvas.bindings.isEmpty)
        _ = canvas.apply(effect: try #require(canvas.reverting(cleared).effect))
        #expect(canvas.shape("c")?.from?.shape == "a" && canvas.bindings["b"] == ["c"])
    }

    @Test("A snapshot whose connector is bound to a missing shape or to a connector is refused; a sound one loads with its bindings")
    func snapshots() throws {
        let canvas = try linked()
        var snapshot = canvas.committedSnapshot
        #expect(snapshot.problem == nil)
        let loaded = try Canvas(snapshot: snapshot)
        #expect(loaded.bindings == canvas.bindings)
        snapshot.shapes.removeAll { $0.id == "b" }
        #expect(snapshot.problem?.contains("no shape of the canvas") == true)
        var bad = canvas.committedSnapshot
        bad.shapes[0].from = Binding(shape: "b", anchor: .center)
        #expect(bad.problem != nil)
    }

    @Test("Property: replaying committed connects, end drags, moves, selection gestures, deletes and undos on an earlier snapshot gives the same canvas, through JSON too")
    func replay() async {
        await propertyCheck(count: 60, input: Gen.uint64(), Gen.int(in: 0...119)) { seed, checkpointAt in
            var live = try makeCanvas()
            var rng = SeededGenerator(state: seed ^ 0xC0FFEE)
            var checkpoint = live.committedSnapshot
            var log: [CommittedOp] = [], effects: [CommittedOp] = []
            func point() -> Point { Point(x: Double.random(in: 0...1000, using: &rng), y: Double.random(in: 0...1000, using: &rng)) }
            for step in 0..<120 {
                if step == checkpointAt {
                    checkpoint = live.committedSnapshot
                    log.removeAll()
                }
                let all = live.shapes
                let plain = all.filter { !$0.kind.isConnector }.map(\.id), connectors = all.filter(\.kind.isConnector).map(\.id)
                let who = [alice, bob][Int.random(in: 0...1, using: &rng)]
                let op: CanvasOp
                switch Int.random(in: 0..<10, using: &rng) {
                case 0, 1: op = .snap(at: point(), shapeID: nil, spec: ShapeSpec(kind: "roundedRect"))
                case 2, 3:
                    let anchors: [Anchor] = Anchor.named + [.point(u: 0.25, v: -0.5)]
                    let end: () -> EndSpec = {
                        plain.isEmpty || Bool.random(using: &rng) ? .at(point())
                            : .bound(Binding(shape: plain.randomElement(using: &rng)!, anchor: anchors.randomElement(using: &rng)!))
                    }
                    op = .connect(shapeID: nil, spec: ShapeSpec(kind: ["line", "arrow"].randomElement(using: &rng)!), from: end(), to: end())
                case 4:
                    let phases: [GesturePhase?] = [nil, .begin, .update, .end]
                    op = .endpoint(connectors.randomElement(using: &rng) ?? "ghost", end: Bool.random(using: &rng) ? .from : .to,
                                   phase: phases.randomElement(using: &rng)!, translation: point() - Point(x: 500, y: 500))
                case 5, 6:
                    let phases: [GesturePhase?] = [nil, .begin, .update, .end]
                    op = .move(all.randomElement(using: &rng)?.id ?? "ghost", phase: phases.randomElement(using: &rng)!,
                               translation: point() - Point(x: 500, y: 500))
                case 7 where Bool.random(using: &rng): op = .delete([all.randomElement(using: &rng)?.id ?? "ghost"])
                case 7:
                    // A selection gesture (P29) on two or three shapes, connectors among them.
                    let phases: [GesturePhase?] = [nil, .begin, .update, .end]
                    let ids = all.isEmpty ? ["ghost", "ghost2"] : (0..<Int.random(in: 2...3, using: &rng)).map { _ in all.randomElement(using: &rng)!.id }
                    op = Bool.random(using: &rng)
                        ? .moveMany(ids, phase: phases.randomElement(using: &rng)!, translation: point() - Point(x: 500, y: 500))
                        : .rotateMany(ids, phase: phases.randomElement(using: &rng)!, radians: Double.random(in: -3...3, using: &rng))
                case 8: op = .duplicate(all.isEmpty ? ["ghost"] : (0..<3).map { _ in all.randomElement(using: &rng)!.id }, ids: nil)
                default:
                    if let undo = effects.randomElement(using: &rng).flatMap({ live.reverting($0).effect }) {
                        let commit = live.apply(effect: undo).commit!
                        log.append(commit)
                        effects.append(commit)
                    }
                    continue
                }
                if let commit = try? live.apply(op, by: who).commit {
                    log.append(commit)
                    effects.append(commit)
                }
            }
            for outcome in live.endGestures(ownedBy: alice.id) + live.endGestures(ownedBy: bob.id) {
                if let commit = outcome.commit { log.append(commit) }
            }
            #expect(live.committedSnapshot.problem == nil, "seed \(seed)")
            var recovered = try Canvas(snapshot: checkpoint)
            for op in log { recovered.replay(op) }
            #expect(recovered.committedSnapshot == live.committedSnapshot, "seed \(seed) checkpoint \(checkpointAt)")
            #expect(recovered.bindings == live.bindings, "seed \(seed)")
            let json = try JSONEncoder().encode(live.committedSnapshot)
            #expect(try JSONDecoder().decode(CanvasSnapshot.self, from: json) == live.committedSnapshot, "seed \(seed)")
            let ops = try JSONDecoder().decode([CommittedOp].self, from: JSONEncoder().encode(log))
            #expect(ops == log, "seed \(seed)")
        }
    }
}
