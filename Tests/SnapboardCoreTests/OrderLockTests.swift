import Foundation
import PropertyBased
import Testing

@testable import SnapboardCore

/// Shapes `a`…`e` (100 × 100) stacked in that order with z 5…9 (seq 10), overlapping each other but `c`,
/// which stands apart.
private func stack() throws -> Canvas {
    var canvas = try makeCanvas()
    let centres: [(ShapeID, Point)] = [("a", Point(x: 300, y: 300)), ("b", Point(x: 340, y: 300)), ("c", Point(x: 800, y: 800)),
                                       ("d", Point(x: 380, y: 300)), ("e", Point(x: 340, y: 340))]
    for (id, _) in centres { try canvas.add(id, at: Point(x: 500, y: 500)) }
    // Each placement brings its shape to the front: a ends lowest.
    for (id, centre) in centres { try canvas.place(id, center: centre) }
    return canvas
}

private extension Canvas {
    /// Ids bottom to top.
    var order: [ShapeID] { shapes.map(\.id) }

    @discardableResult
    mutating func order(_ ids: [ShapeID], _ move: StackMove, by who: Participant = alice) throws -> Outcome {
        try apply(.order(ids, to: move), by: who)
    }
}

@Suite("Z-order and lock (1.6)")
struct OrderLockTests {
    @Test("front puts the shapes above every other, keeping their order; back below every other")
    func frontAndBack() throws {
        var canvas = try stack()
        let front = try canvas.order(["b", "a"], .front)
        #expect(canvas.order == ["c", "d", "e", "a", "b"])
        #expect(front.seq == 11 && front.commit != nil && Set(front.changed.map(\.id)) == ["a", "b"])
        let back = try canvas.order(["e", "b"], .back)
        #expect(canvas.order == ["e", "b", "c", "d", "a"] && back.seq == 12)
        // Only the named shapes changed z.
        guard case .order(let moves)? = back.commit else { throw CancellationError() }
        #expect(Set(moves.map(\.id)) == ["e", "b"])
    }

    @Test("forward passes the nearest overlapping shape above; backward the nearest below; no overlap, no move")
    func forwardAndBackward() throws {
        var canvas = try stack()
        // a overlaps b first: it lands just above b.
        try canvas.order(["a"], .forward)
        #expect(canvas.order == ["b", "a", "c", "d", "e"])
        // b overlaps a, d and e above it: it passes a only; c (apart) is not an obstacle.
        try canvas.order(["b"], .forward)
        #expect(canvas.order == ["a", "b", "c", "d", "e"])
        // d's nearest overlapping shape below is b, passing c, which does not overlap it.
        try canvas.order(["d"], .backward)
        #expect(canvas.order == ["a", "d", "b", "c", "e"])
        // c overlaps nothing: forward and backward change nothing.
        let still = try canvas.order(["c"], .forward)
        #expect(still.unchanged && still.commit == nil && still.seq == canvas.seq)
        // Several shapes landing on one keep their order.
        try canvas.order(["a", "d"], .forward)
        #expect(canvas.order == ["b", "a", "d", "c", "e"])
    }

    @Test("An order that would change nothing commits nothing: no seq, unchanged")
    func unchangedOrders() throws {
        var canvas = try stack()
        for (ids, move) in [(["e"], StackMove.front), (["d", "e"], .front), (["a"], .back), (["a", "b"], .back), (["a"], .backward)] {
            let out = try canvas.order(ids, move)
            #expect(out.unchanged && out.commit == nil && out.seq == 10, "\(ids) \(move)")
        }
        #expect(canvas.seq == 10 && canvas.order == ["a", "b", "c", "d", "e"])
    }

    @Test("A dense stack is renumbered over the span that changed; z stays in ±maxZ")
    func denseRenumbering() throws {
        var canvas = try stack()
        // z's are 5…9, with no room between b and c: a forward renumbers a and b only.
        let out = try canvas.order(["a"], .forward)
        guard case .order(let moves)? = out.commit else { throw CancellationError() }
        #expect(Set(moves.map(\.id)) == ["a", "b"])
        #expect(canvas.order == ["b", "a", "c", "d", "e"] && canvas.shapes.map(\.z) == [5, 6, 7, 8, 9])
        // At the top of the z range a front is out_of_range, and nothing changes.
        var snapshot = canvas.committedSnapshot
        snapshot.shapes[4].z = Canvas.maxZ
        var full = try Canvas(snapshot: snapshot)
        expectRejection(.outOfRange) { try full.order(["a"], .front) }
        snapshot.shapes[0].z = -Canvas.maxZ
        full = try Canvas(snapshot: snapshot)
        expectRejection(.outOfRange) { try full.order(["e"], .back) }
        #expect(full.committedSnapshot == snapshot)
    }

    @Test("order and lock name 1–1000 existing shapes, all or none, none under a gesture")
    func namingRules() throws {
        var canvas = try stack()
        for op in [CanvasOp.order(["a", "ghost"], to: .front), .lock(["ghost", "a"], locked: true)] {
            expectRejection(.unknownShape) { _ = try canvas.apply(op, by: alice) }
        }
        for op in [CanvasOp.order([], to: .front), .lock(Array(repeating: "a", count: 1001), locked: true)] {
            expectRejection(.outOfRange) { _ = try canvas.apply(op, by: alice) }
        }
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: bob)
        for who in [alice, bob] {
            expectRejection(.shapeLocked) { try canvas.order(["a", "b"], .back, by: who) }
            expectRejection(.shapeLocked) { _ = try canvas.apply(.lock(["b"], locked: true), by: who) }
        }
        #expect(canvas.seq == 10 && !canvas.shapes.contains(where: \.locked))
    }

    @Test("A locked shape refuses move, scale and rotate in every phase, and delete; it may be ordered and unlocked")
    func lockedRefusals() throws {
        var canvas = try stack()
        let lock = try canvas.apply(.lock(["a", "b", "a"], locked: true), by: alice)
        #expect(lock.seq == 11 && lock.commit == .lock(["a", "b"], locked: true) && lock.changed.allSatisfy(\.locked))
        let before = canvas.committedSnapshot
        let refused: [CanvasOp] = [GesturePhase.begin, .update, .end].flatMap { phase in
            [CanvasOp.move("a", phase: phase, translation: Point(x: 5, y: 0)), .scale("a", phase: phase, factor: 2, anchor: nil),
             .rotate("a", phase: phase, radians: 1)]
        } + [.move("a", phase: nil, translation: Point(x: 5, y: 0)), .scale("a", phase: nil, factor: 2, anchor: nil),
             .rotate("a", phase: nil, radians: 1), .delete(["c", "a"])]
        for op in refused { expectRejection(.locked) { _ = try canvas.apply(op, by: bob) } }
        #expect(canvas.committedSnapshot == before && canvas.leases.isEmpty)
        // Locking what is locked changes nothing; order works on locked shapes.
        #expect(try canvas.apply(.lock(["a"], locked: true), by: bob).unchanged)
        try canvas.order(["a"], .front, by: bob)
        #expect(canvas.order.last == "a" && canvas.shape("a")!.locked)
        let unlock = try canvas.apply(.lock(["a", "c"], locked: false), by: bob)
        #expect(unlock.commit == .lock(["a"], locked: false))
        _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: 5, y: 0)), by: bob)
    }

    @Test("clear removes locked shapes too, and undoing it brings them back locked")
    func clearWithLockedShapes() throws {
        var canvas = try stack()
        _ = try canvas.apply(.lock(["c"], locked: true), by: alice)
        let clear = try canvas.apply(.clear, by: alice)
        #expect(clear.cleared && canvas.count == 0)
        let undo = try #require(canvas.reverting(clear.commit!).effect)
        _ = canvas.apply(effect: undo)
        #expect(canvas.count == 5 && canvas.shape("c")!.locked && !canvas.shape("a")!.locked)
    }

    @Test("Undo and redo of an order and a lock; undo never moves or removes a locked shape")
    func undoRedo() throws {
        var canvas = try stack()
        let start = canvas.order
        let order = try canvas.order(["a"], .front).commit!
        let undoOrder = try #require(canvas.reverting(order).effect)
        _ = canvas.apply(effect: undoOrder)
        #expect(canvas.order == start)
        _ = canvas.apply(effect: try #require(canvas.reverting(undoOrder).effect))
        #expect(canvas.order.last == "a")

        let lock = try canvas.apply(.lock(["b"], locked: true), by: alice).commit!
        let undoLock = try #require(canvas.reverting(lock).effect)
        #expect(undoLock == .lock(["b"], locked: false))
        _ = canvas.apply(effect: undoLock)
        #expect(!canvas.shape("b")!.locked)

        // A move, then a lock by someone else: undoing the move leaves the locked shape alone.
        let move = try canvas.apply(.move("d", phase: nil, translation: Point(x: 0, y: 100)), by: alice).commit!
        _ = try canvas.apply(.lock(["d"], locked: true), by: bob)
        let (effect, skipped) = canvas.reverting(move)
        #expect(effect == nil && skipped.map(\.code) == [.locked])
        // A lock changed since (unlocked by another) is changed_since.
        let lockAgain = try canvas.apply(.lock(["b"], locked: true), by: alice).commit!
        _ = try canvas.apply(.lock(["b"], locked: false), by: bob)
        #expect(canvas.reverting(lockAgain).skipped.map(\.code) == [.changedSince])
    }

    /// P25's words, done the plain way: forward takes the named shapes from the top down, backward from the
    /// bottom up, and moves each, one at a time, just past its nearest overlapping shape that is not named.
    static func reference(_ stack: [Shape], _ named: Set<ShapeID>, _ move: StackMove) -> [ShapeID] {
        var order = stack.map(\.id)
        let bounds = Dictionary(uniqueKeysWithValues: stack.map { ($0.id, $0.bounds) })
        func touch(_ a: ShapeID, _ b: ShapeID) -> Bool {
            let (p, q) = (bounds[a]!, bounds[b]!)
            return p.minX <= q.maxX && q.minX <= p.maxX && p.minY <= q.maxY && q.minY <= p.maxY
        }
        switch move {
        case .front: return order.filter { !named.contains($0) } + order.filter { named.contains($0) }
        case .back: return order.filter { named.contains($0) } + order.filter { !named.contains($0) }
        case .forward:
            for id in stack.map(\.id).reversed() where named.contains(id) {
                let i = order.firstIndex(of: id)!
                guard let x = order[(i + 1)...].first(where: { !named.contains($0) && touch($0, id) }) else { continue }
                order.remove(at: i)
                order.insert(id, at: order.firstIndex(of: x)! + 1)
            }
        case .backward:
            for id in stack.map(\.id) where named.contains(id) {
                let i = order.firstIndex(of: id)!
                guard let x = order[..<i].last(where: { !named.contains($0) && touch($0, id) }) else { continue }
                order.remove(at: i)
                order.insert(id, at: order.firstIndex(of: x)!)
            }
        }
        return order
    }

    @Test("Property: an order gives the stack P25 describes (checked against a plain reference), changes z's only of the shapes it reports, and is unchanged exactly when the stack would be")
    func orderMatchesReference() async {
        await propertyCheck(count: 60, input: Gen.uint64()) { seed in
            var config = CanvasConfig()
            config.width = 1000
            config.height = 1000
            var canvas = try Canvas(id: "ref", config: config)
            var session = RandomSession(seed: seed)
            var rng = SeededGenerator(state: seed ^ 0x51ED)
            var effects: [CommittedOp] = []
            for _ in 0..<150 {
                let (op, who) = session.next(on: canvas)
                if let commit = try? canvas.apply(op, by: who).commit { effects.append(commit) }
                // Undos bring shapes back with their old z's, which may tie with others'.
                if Int.random(in: 0..<8, using: &rng) == 0, let effect = effects.randomElement(using: &rng),
                   let undo = canvas.reverting(effect).effect {
                    effects.append(canvas.apply(effect: undo).commit!)
                }
                for who in session.participants { _ = canvas.endGestures(ownedBy: who.id) }
                let ids = canvas.shapes.map(\.id)
                guard !ids.isEmpty else { continue }
                let named = Set((0..<Int.random(in: 1...3, using: &rng)).map { _ in ids.randomElement(using: &rng)! })
                let move = StackMove.allCases.randomElement(using: &rng)!
                let before = canvas.shapes
                let expected = Self.reference(before, named, move)
                guard let outcome = try? canvas.apply(.order(Array(named), to: move), by: alice) else { continue }
                #expect(canvas.shapes.map(\.id) == expected, "seed \(seed) \(move) \(named.sorted())")
                #expect(outcome.unchanged == (expected == before.map(\.id)), "seed \(seed)")
                let changed = Set(zip(before.sorted { $0.id < $1.id }, canvas.shapes.sorted { $0.id < $1.id })
                    .filter { $0.0.z != $0.1.z }.map(\.0.id))
                #expect(changed == Set(outcome.changed.map(\.id)), "seed \(seed)")
                if let commit = outcome.commit { effects.append(commit) }
            }
        }
    }

    @Test("Property: replaying committed orders, locks and their undos on an earlier snapshot gives the same canvas")
    func replayWithOrderAndLock() async {
        await propertyCheck(count: 30, input: Gen.uint64(), Gen.int(in: 0...199)) { seed, checkpointAt in
            var config = CanvasConfig()
            config.width = 1000
            config.height = 1000
            var live = try Canvas(id: "order", config: config)
            var session = RandomSession(seed: seed)
            var rng = SeededGenerator(state: seed ^ 0x9E37)
            var checkpoint = live.committedSnapshot
            var log: [CommittedOp] = [], effects: [CommittedOp] = []
            for step in 0..<200 {
                if step == checkpointAt {
                    checkpoint = live.committedSnapshot
                    log.removeAll()
                }
                let ids = live.shapes.map(\.id)
                let named = ids.isEmpty ? ["ghost"] : (0..<Int.random(in: 1...4, using: &rng)).map { _ in ids.randomElement(using: &rng)! }
                let op: CanvasOp, who: Participant
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<2: (op, who) = (.order(named, to: StackMove.allCases.randomElement(using: &rng)!), session.participants[0])
                case 2..<4: (op, who) = (.lock(named, locked: Bool.random(using: &rng)), session.participants[1])
                case 4 where !effects.isEmpty:
                    // An undo of an earlier effect, as the room resolves one.
                    if let undo = live.reverting(effects.randomElement(using: &rng)!).effect {
                        let commit = live.apply(effect: undo).commit!
                        log.append(commit)
                        effects.append(commit)
                    }
                    continue
                default: (op, who) = session.next(on: live)
                }
                if let commit = try? live.apply(op, by: who).commit {
                    log.append(commit)
                    effects.append(commit)
                }
                let zs = live.shapes.map(\.z)
                #expect(zs.allSatisfy { abs($0) <= Canvas.maxZ }, "seed \(seed)")
            }
            var recovered = try Canvas(snapshot: checkpoint)
            for op in log { recovered.replay(op) }
            #expect(recovered.committedSnapshot == live.committedSnapshot, "seed \(seed) checkpoint \(checkpointAt)")
            // And through JSON and back, as checkpoints store it.
            let json = try JSONEncoder().encode(live.committedSnapshot)
            #expect(try JSONDecoder().decode(CanvasSnapshot.self, from: json) == live.committedSnapshot, "seed \(seed)")
        }
    }
}

