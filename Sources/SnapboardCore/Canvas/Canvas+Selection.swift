/// Gestures on a selection of shapes (1.7, P29): one drag, pinch or twist of 2–1,000 shapes, which takes every
/// shape's lease at its begin or is refused whole, snaps the selection's bounds as one shape's, and commits
/// every shape's placement as one op.
extension Canvas {
    /// What a selection gesture does, cumulative since its begin.
    enum SelectionChange {
        case move(Point)
        /// By a factor and a turn, about a point (the centre of the selection's bounds when nil).
        case scale(Double, Point?, Double)

        var isIdentity: Bool {
            switch self {
            case .move(let t): t == .zero
            case .scale(let f, _, let r): f == 1 && r == 0
            }
        }
    }

    /// Applies one phase of a selection gesture on `ids` (2–`maxNamed` distinct shapes, else
    /// `out_of_range`). A begin leases every shape, each existing (`unknown_shape`), unlocked (`locked`)
    /// and under no other gesture (`shape_locked`; the sender's own selection gesture on exactly these shapes
    /// is re-based), and brings them to the front in their order. An update or end names the same shapes as
    /// the begin (`no_gesture` otherwise).
    mutating func selectionGesture(
        _ ids: [ShapeID], _ kind: Gesture.Kind, _ phase: GesturePhase?, _ participant: Participant,
        snaps: Bool = true, change: SelectionChange
    ) throws(Rejection) -> Outcome {
        var seen = Set<ShapeID>(), members: [ShapeID] = []
        for id in ids where seen.insert(id).inserted { members.append(id) }
        guard (2...Canvas.maxNamed).contains(members.count), ids.count <= Canvas.maxNamed else {
            throw Rejection(.outOfRange, "a selection gesture names 2–\(Canvas.maxNamed) shapes")
        }
        var slots: [Int32] = []
        for id in members {
            guard let slot = store.slot(of: id) else { throw Rejection(.unknownShape, "no shape \(id.prefix(64))") }
            if store.shape(inSlot: slot).locked { throw Rejection(.locked, "shape \(id) is locked") }
            slots.append(slot)
        }
        let held = Set(slots.compactMap { gestures[$0]?.selection })
        var token: Int
        switch phase {
        case .begin?, nil:
            for (id, slot) in zip(members, slots) {
                guard let g = gestures[slot] else { continue }
                guard g.owner == participant.id else { throw Rejection(.shapeLocked, "another session is changing shape \(id)") }
                guard let t = g.selection, held.count == 1, Set(selections[t]?.members ?? []) == seen else {
                    throw Rejection(.shapeLocked, "a gesture is in progress on shape \(id)")
                }
            }
            token = try beginSelection(members, slots, kind, participant, snaps: snaps, rebasing: held.first)
        case .update?, .end?:
            guard held.count == 1, let t = held.first, let selection = selections[t], selection.owner == participant.id,
                  selection.kind == kind, Set(selection.members) == seen, slots.allSatisfy({ gestures[$0]?.selection == t })
            else { throw Rejection(.noGesture, "no \(kind) gesture in progress on these \(members.count) shapes") }
            token = t
            if !snaps { selections[t]?.whole.snaps = false }
        }
        let outcome = change.isIdentity ? backToOrigins(token) : apply(change, to: token)
        return ended(outcome, phase) { $0.commitSelection(token) }
    }

    /// Leases `slots` for a new selection gesture, or re-bases the sender's own on the live state, and
    /// returns its key.
    private mutating func beginSelection(
        _ members: [ShapeID], _ slots: [Int32], _ kind: Gesture.Kind, _ participant: Participant, snaps: Bool, rebasing old: Int?
    ) throws(Rejection) -> Int {
        var committed: [Int32: Shape] = [:]
        if let old {
            for slot in slots { committed[slot] = gestures[slot]?.committed }
            selections[old] = nil
        }
        // To the front, keeping their order, unless they are already the topmost shapes in that order.
        let ordered = zip(slots, slots.map { store.shape(inSlot: $0) }).sorted { Canvas.drawingOrder($0.1, $1.1) }
        let onTop = ordered.enumerated().allSatisfy { $1.1.z == nextZ - ordered.count + $0 }
        if !onTop { try requireZRoom(ordered.count) }
        var union: Rect?
        for (n, (slot, shape)) in ordered.enumerated() {
            var origin = shape
            if !onTop {
                origin.z = nextZ + n
                store.setLive(origin, inSlot: slot, bounds: store.bounds(inSlot: slot))
            }
            let bounds = store.bounds(inSlot: slot)
            union = union.map { $0.union(bounds) } ?? bounds
            var g = Gesture(owner: participant.id, kind: kind, slot: slot, committed: committed[slot] ?? shape, origin: origin,
                            originBounds: bounds, zoom: participant.zoom, snaps: snaps)
            g.selection = nextSelection
            gestures.set(g, at: slot)
        }
        if !onTop { nextZ += ordered.count }
        let frame = union!
        let stand = Shape(id: members[0], kind: .roundedRect, center: frame.center, size: frame.size, fill: HSBColor(h: 0, s: 0, b: 0, a: 0), z: 0)
        let whole = Gesture(owner: participant.id, kind: kind, slot: slots[0], committed: stand, origin: stand, originBounds: frame,
                            zoom: participant.zoom, snaps: snaps)
        selections[nextSelection] = SelectionGesture(owner: participant.id, kind: kind, members: members, whole: whole)
        nextSelection += 1
        return nextSelection - 1
    }

    /// The slots and gestures of selection `token`'s shapes still under it (a delete may have taken some).
    func members(of token: Int) -> [(slot: Int32, gesture: Gesture)] {
        (selections[token]?.members ?? []).compactMap { id in
            guard let slot = store.slot(of: id), let g = gestures[slot], g.selection == token else { return nil }
            return (slot, g)
        }
    }

    /// Puts every shape of the selection back where the gesture began, holding no snap.
    private mutating func backToOrigins(_ token: Int) -> Outcome {
        var outcome = Outcome()
        selections[token]?.whole.xLock = nil
        selections[token]?.whole.yLock = nil
        selections[token]?.whole.angleLock = nil
        for (slot, g) in members(of: token) {
            store.setLive(g.origin, inSlot: slot, bounds: g.originBounds)
            outcome.changed.append(g.origin)
        }
        outcome.changed += liveFollowers(of: outcome.changed.map(\.id))
        return outcome
    }

    /// Moves, scales and turns every shape of the selection from where it began, as one shape: a move snaps
    /// the selection's bounds; a pinch keeps every shape's size within the canvas's limits and snaps the turn
    /// to the angle step; the result is kept on the canvas as a whole, and each shape on it.
    private mutating func apply(_ change: SelectionChange, to token: Int) -> Outcome {
        guard var whole = selections[token]?.whole else { return Outcome() }
        let all = members(of: token)
        var outcome = Outcome()
        var placed: [(Int32, Shape)] = []
        switch change {
        case .move(let t):
            let (center, _) = whole.snaps ? snappedMove(&whole, by: t, slot: whole.slot, events: &outcome.events) : exactMove(whole, by: t)
            let offset = center - whole.origin.center
            placed = all.map { slot, g in
                var shape = store.shape(inSlot: slot)
                shape.center = g.origin.center + offset
                return (slot, shape)
            }
        case .scale(let factor, let anchor, let radians):
            // Every shape stays within the sizes a pinch of it alone could reach.
            var lower = 0.0, upper = Double.infinity
            for (_, g) in all {
                let longest = max(g.origin.size.width, g.origin.size.height) * g.origin.scale
                let (least, most) = g.origin.kind.isConnector ? (Shape.connectorThickness, Shape.maxConnectorLength) : (config.minSize, config.maxSize)
                lower = max(lower, least / longest)
                upper = min(upper, most / longest)
            }
            let f = min(max(factor, lower), max(upper, lower))
            var turn = 0.0
            if radians != 0 {
                // The turn snaps to the angle step, as one shape's rotation does from 0.
                whole.origin.rotation = 0
                turn = snappedAngle(&whole, radians, events: &outcome.events)
                if turn > Double.pi { turn -= 2 * Double.pi }
            }
            let pivot = anchor ?? whole.origin.center
            let r = AffineTransform.rotation(turn)
            placed = all.map { slot, g in
                var shape = store.shape(inSlot: slot)
                shape.center = pivot + r.applyToVector(g.origin.center - pivot) * f
                shape.scale = g.origin.scale * f
                shape.rotation = Canvas.normalized(g.origin.rotation + turn)
                return (slot, shape)
            }
            // Kept on the canvas as a whole; a selection turned or grown past the canvas has each shape kept
            // on it too, as one shape alone would be.
            let union = placed.dropFirst().reduce(placed[0].1.bounds) { $0.union($1.1.bounds) }
            let offset = keptIn(union, center: union.center)
            placed = placed.map { slot, shape in
                var moved = shape
                moved.center = moved.center + offset
                return (slot, keptIn(moved).0)
            }
        }
        selections[token]?.whole = whole
        for (slot, shape) in placed {
            store.setLive(shape, inSlot: slot)
            outcome.changed.append(shape)
        }
        outcome.changed += liveFollowers(of: placed.map(\.1.id))
        return outcome
    }

    /// Connectors bound to any of `targets`, not among them, laid from the live state: what a live delta
    /// of a selection gesture shows with it.
    private func liveFollowers(of targets: [ShapeID]) -> [Shape] {
        let named = Set(targets)
        var seen = Set<ShapeID>()
        return targets.flatMap { liveFollowers(of: $0) }.filter { !named.contains($0.id) && seen.insert($0.id).inserted }
    }

    /// Ends selection gesture `token`: every shape's live placement commits as one `arrange` (on a layout
    /// canvas a move first fits each to the free cell nearest its centre, or puts it back when there is none);
    /// when none moved, nothing commits and every shape goes back to its committed state.
    mutating func commitSelection(_ token: Int) -> Outcome {
        let all = members(of: token)
        let kind = selections[token]?.kind
        selections[token] = nil
        for (slot, _) in all { gestures.remove(slot) }
        var cells = layout.map { LayoutCells($0, of: self, moving: Set(all.map(\.slot))) }
        var after: [Placement] = [], before: [Placement] = []
        for (slot, g) in all {
            var shape = store.shape(inSlot: slot)
            if cells != nil, kind == .move, !shape.kind.isConnector, !Placement(of: shape).isSamePlace(as: Placement(of: g.committed)) {
                if let frame = cells!.take(near: shape.center) {
                    shape.center = frame.center
                    shape.size = fitted(shape.kind, shape.size, to: frame.size, limits: config.minSize...config.maxSize)
                    shape.scale = 1
                    shape = keptIn(shape).0
                } else {
                    shape = Placement(of: g.committed).applied(to: shape)
                }
            }
            after.append(Placement(of: shape))
            before.append(Placement(of: g.committed))
        }
        guard zip(after, before).contains(where: { !$0.isSamePlace(as: $1) }) else {
            var outcome = Outcome()
            for (slot, g) in all {
                let shape = Placement(of: g.committed).applied(to: store.shape(inSlot: slot))
                store.setLive(shape, inSlot: slot)
                store.reindex(shape.id)
                outcome.changed.append(shape)
            }
            let ids = Set(all.map { store.shape(inSlot: $0.slot).id })
            outcome.changed += ids.sorted().flatMap { (bindings[$0] ?? []).sorted() }.filter { !ids.contains($0) }.compactMap { store.shape($0) }
            outcome.unchanged = true
            outcome.seq = seq
            return outcome
        }
        return commit(.arrange(after, before: before))
    }
}
