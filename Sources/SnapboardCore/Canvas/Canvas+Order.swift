/// Operations on shapes that move nothing (1.6): `order` restacks them, `lock` locks or unlocks them.
extension Canvas {
    /// The most shapes one `order` or `lock` may name, as for a `delete`.
    public static let maxNamed = 1_000

    /// The shapes `ids` names, each once, in the order first named: 1–`maxNamed` ids (`out_of_range`), every
    /// one existing (`unknown_shape`) and under no gesture, the sender's own included (`shape_locked`): a
    /// gesture's commit writes the z it took at its begin, and none runs on a locked shape.
    func named(_ ids: [ShapeID], _ op: String) throws(Rejection) -> [Shape] {
        guard (1...Canvas.maxNamed).contains(ids.count) else {
            throw Rejection(.outOfRange, "\(op) names 1–\(Canvas.maxNamed) shapes")
        }
        var seen = Set<ShapeID>(), shapes: [Shape] = []
        for id in ids where seen.insert(id).inserted {
            guard let shape = store.shape(id) else { throw Rejection(.unknownShape, "no shape \(id.prefix(64))") }
            guard gesture(on: id) == nil else { throw Rejection(.shapeLocked, "a gesture is in progress on shape \(id)") }
            shapes.append(shape)
        }
        return shapes
    }

    /// What an op that would change nothing answers: no commit, the current seq (P14).
    var unchangedOutcome: Outcome {
        var outcome = Outcome()
        outcome.unchanged = true
        outcome.seq = seq
        return outcome
    }

    /// Locks (or unlocks) `ids`, all or none. Only the shapes whose flag changes are committed; when none
    /// does, nothing commits (`unchanged`). Locked shapes may be locked, unlocked and restacked.
    mutating func lock(_ ids: [ShapeID], locked: Bool) throws(Rejection) -> Outcome {
        let changing = try named(ids, "lock").filter { $0.locked != locked }.map(\.id)
        guard !changing.isEmpty else { return unchangedOutcome }
        return commit(.lock(changing, locked: locked))
    }

    /// Restacks `ids`, all or none (see `StackMove`), against the committed stack, bottom to top by (z, id).
    /// Only named shapes get a new z when the z's between their new neighbours leave room; otherwise the
    /// shapes between the first and the last place whose shape changed are renumbered, reusing their own
    /// z's when those are distinct, else counting up from the shape below. A stack that would come out the
    /// same commits nothing (`unchanged`); a z that would leave ±`maxZ` is `out_of_range`.
    mutating func order(_ ids: [ShapeID], to move: StackMove) throws(Rejection) -> Outcome {
        let named = try named(ids, "order")
        let isNamed = Set(named.map(\.id))
        let old = committedShapes
        let restacked = Canvas.restacked(old, isNamed: isNamed, to: move)
        guard restacked.map(\.id) != old.map(\.id) else { return unchangedOutcome }
        // Live z's of shapes under a gesture: a shape given one would tie with it when the gesture commits.
        let taken = Set(gestures.all.map { store.shape(inSlot: $0.slot).z })
        var zs = try Canvas.namedOnlyZs(restacked, isNamed: isNamed, taken: taken, nextZ: nextZ)
        if zs == nil { zs = try Canvas.renumberedZs(old: old, new: restacked) }
        var moves: [ZMove] = []
        for (shape, z) in zip(restacked, zs!) where shape.z != z {
            // A renumbering never reaches a shape under a gesture: its gesture keeps the z it began from.
            guard gesture(on: shape.id) == nil else {
                throw Rejection(.shapeLocked, "this order would renumber shape \(shape.id), which is under a gesture")
            }
            moves.append(ZMove(id: shape.id, z: z, before: shape.z))
        }
        return commit(.order(moves))
    }

    /// `stack` (bottom to top) with the named shapes moved as `move` says. Shapes not named keep their
    /// order. Forward: each named shape goes just above the nearest shape above it that is not named and
    /// whose bounds share a point with its own (several landing on one shape keep their order), and stays
    /// when there is none. Backward likewise, below.
    static func restacked(_ stack: [Shape], isNamed: Set<ShapeID>, to move: StackMove) -> [Shape] {
        let n = stack.count
        let bounds = stack.map(\.bounds)
        func touches(_ a: Rect, _ b: Rect) -> Bool {
            a.minX <= b.maxX && b.minX <= a.maxX && a.minY <= b.maxY && b.minY <= a.maxY
        }
        // Each shape's key in the new order: (index it sits at or lands beside, tier, old index).
        var keys: [(Int, Int, Int)] = []
        keys.reserveCapacity(n)
        for (i, shape) in stack.enumerated() {
            guard isNamed.contains(shape.id) else { keys.append((i, 0, i)); continue }
            switch move {
            case .front: keys.append((n, 1, i))
            case .back: keys.append((-1, 1, i))
            case .forward:
                let j = (i + 1..<n).first { !isNamed.contains(stack[$0].id) && touches(bounds[$0], bounds[i]) }
                keys.append(j.map { ($0, 1, i) } ?? (i, 0, i))
            case .backward:
                let j = (0..<i).reversed().first { !isNamed.contains(stack[$0].id) && touches(bounds[$0], bounds[i]) }
                keys.append(j.map { ($0, -1, i) } ?? (i, 0, i))
            }
        }
        return (0..<n).sorted { keys[$0] < keys[$1] }.map { stack[$0] }
    }

    /// New z's for `stack` (the new order) that change only named shapes, or nil when some run of named
    /// shapes has no room between the z's of the shapes not named around it. A run already in increasing
    /// z inside that room keeps its z's; another takes the first free z's above the shape below it (from
    /// `nextZ` at the top, so a shape brought to the front is above every gesture's too), skipping `taken`.
    static func namedOnlyZs(_ stack: [Shape], isNamed: Set<ShapeID>, taken: Set<Int>, nextZ: Int) throws(Rejection) -> [Int]? {
        var zs = stack.map(\.z)
        var i = 0
        while i < stack.count {
            guard isNamed.contains(stack[i].id) else { i += 1; continue }
            var end = i
            while end + 1 < stack.count, isNamed.contains(stack[end + 1].id) { end += 1 }
            let count = end - i + 1
            let below = i > 0 ? stack[i - 1].z : nil
            let above = end + 1 < stack.count ? stack[end + 1].z : nil
            let run = stack[i...end].map(\.z)
            let fits = zip(run, run.dropFirst()).allSatisfy { $0 < $1 }
                && below.map { run.first! > $0 } ?? true && above.map { run.last! < $0 } ?? true
            if !fits {
                switch (below, above) {
                case (_, nil):
                    // The top: fresh z's from `nextZ`, which is above every z, live ones included.
                    guard nextZ <= Canvas.maxZ - (count - 1) else {
                        throw Rejection(.outOfRange, "the canvas has used up its stacking order (z)")
                    }
                    for k in 0..<count { zs[i + k] = nextZ + k }
                case (nil, let above?):
                    guard above >= -Canvas.maxZ + count else {
                        throw Rejection(.outOfRange, "the canvas has used up its stacking order (z)")
                    }
                    for k in 0..<count { zs[i + k] = above - count + k }
                case (let below?, let above?):
                    var z = below + 1
                    for k in 0..<count {
                        while taken.contains(z) { z += 1 }
                        guard z < above else { return nil }
                        zs[i + k] = z
                        z += 1
                    }
                }
            }
            i = end + 1
        }
        return zs
    }

    /// New z's for `new` when named shapes alone have no room: the span from the first to the last index
    /// whose shape changed takes its own z's, sorted, when they are distinct and between its neighbours';
    /// otherwise the span and everything above it count up from the z below it.
    static func renumberedZs(old: [Shape], new: [Shape]) throws(Rejection) -> [Int] {
        var zs = new.map(\.z)
        let changed = old.indices.filter { old[$0].id != new[$0].id }
        let a = changed.first!, b = changed.last!
        let own = old[a...b].map(\.z).sorted()
        let distinct = zip(own, own.dropFirst()).allSatisfy { $0 < $1 }
        if distinct, a == 0 || own.first! > old[a - 1].z, b == old.count - 1 || own.last! < old[b + 1].z {
            for k in 0..<own.count { zs[a + k] = own[k] }
            return zs
        }
        let start = a > 0 ? old[a - 1].z + 1 : old[0].z
        guard start <= Canvas.maxZ - (new.count - a - 1) else {
            throw Rejection(.outOfRange, "the canvas has used up its stacking order (z)")
        }
        for k in a..<new.count { zs[k] = start + (k - a) }
        return zs
    }
}
