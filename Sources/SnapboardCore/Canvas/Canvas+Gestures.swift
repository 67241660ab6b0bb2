/// Gestures: a move, scale or rotate leases its shape from its begin to its end, snapping as it goes, and
/// commits where the shape was last put, or nothing when that is where it was committed.
extension Canvas {
    /// Ends every gesture `owner` holds, committing each shape where it was last put: what happens when a
    /// session disconnects. One outcome per gesture, in shape-id order; an `unchanged` one committed nothing.
    public mutating func endGestures(ownedBy owner: String) -> [Outcome] {
        // A selection's gesture ends once, with its first member: the others have none left by then.
        gestures.all.filter { $0.gesture.owner == owner }.map { store.shape(inSlot: $0.slot).id }.sorted().compactMap { id in
            gesture(on: id) == nil ? nil : commitGesture(id)
        }
    }

    /// Ends the gesture on `id`, committing the shape where it was last put: what happens when a lease
    /// expires. Nil when no gesture is in progress on it; `unchanged` when the shape was where it was
    /// committed, and then nothing committed.
    public mutating func endGesture(on id: ShapeID) -> Outcome? {
        gesture(on: id) == nil ? nil : commitGesture(id)
    }

    /// Applies one phase of a gesture. `update` moves `gesture` from its origin by the cumulative parameters.
    /// Parameters that are the `identity` put the shape exactly where the gesture's begin found it, in any
    /// phase, unsnapped: a shape picked up stays where it was, even next to an edge, and a drag brought back
    /// to where it began is back there. A begin with other parameters applies them as its first update.
    /// `snaps` false (an exact move) holds from a begin for the whole gesture, and from an update or end for
    /// the rest of it. An end or a one-shot that leaves the shape where it was committed commits nothing
    /// (`Outcome.unchanged`).
    mutating func gesture(
        _ id: ShapeID, _ kind: Gesture.Kind, _ phase: GesturePhase?, _ participant: Participant, identity: Bool,
        snaps: Bool = true, update: (inout Canvas, inout Gesture) -> Outcome
    ) throws(Rejection) -> Outcome {
        guard let slot = store.slot(of: id) else { throw Rejection(.unknownShape, "no shape \(id.prefix(64))") }
        if phase == .update, kind == .move || kind == .scale || kind == .rotate {
            return try step(slot, id, kind, participant, identity: identity, snaps: snaps, update: update)
        }
        let current = gestures[slot]
        if let refusal = refusal(current.map { ($0.owner, $0.kind) }, slot, id, kind, participant) { throw refusal }
        var g: Gesture
        switch phase {
        case .begin?, nil:
            // A begin by the lease holder re-bases the gesture on the live state, so nothing jumps.
            var origin = store.shape(inSlot: slot)
            let committed = current?.committed ?? origin
            if kind != .text, origin.z != nextZ - 1 || nextZ == 0 {
                try requireZRoom()
                origin.z = nextZ
                nextZ += 1
                store.setLive(origin, bounds: store.bounds(inSlot: slot))
            }
            g = Gesture(owner: participant.id, kind: kind, slot: slot, committed: committed, origin: origin,
                        originBounds: store.bounds(inSlot: slot), zoom: participant.zoom, snaps: snaps)
            g.draft = current?.draft
        case .update?, .end?:
            guard let current, current.kind == kind else { throw Self.noGesture(kind, id) }
            g = current
            if !snaps { g.snaps = false }
        }
        var outcome = Outcome()
        if identity {
            outcome.changed = [backToOrigin(&g)]
        } else {
            outcome = update(&self, &g)
        }
        gestures.set(g, at: slot)
        // Connectors bound to the shape follow it live (P28); they are laid again in the store when it commits.
        if kind != .text { outcome.changed += liveFollowers(of: id) }
        return ended(outcome, phase) { $0.commitGesture(id) }
    }

    /// Why `participant` may not run a `kind` gesture on `id` while `current` holds its shape, if it may not.
    private func refusal(_ current: (owner: String, kind: Gesture.Kind)?, _ slot: Int32, _ id: ShapeID, _ kind: Gesture.Kind,
                         _ participant: Participant) -> Rejection? {
        if let current, current.owner != participant.id {
            return Rejection(.shapeLocked, current.kind == .text ? "another session is editing shape \(id)'s text" : "another session is changing shape \(id)")
        }
        // A text edit and a gesture never share a shape, even one session's (1.7).
        if let current, (current.kind == .text) != (kind == .text) {
            return Rejection(.shapeLocked, current.kind == .text ? "shape \(id)'s text is being edited" : "a gesture is in progress on shape \(id)")
        }
        // Every phase: no gesture ever runs on a locked shape (a lock is refused while one does).
        if store.shape(inSlot: slot).locked { return Rejection(.locked, "shape \(id) is locked") }
        return nil
    }

    /// The refusal of an update or an end with no `kind` gesture in progress on `id`.
    private static func noGesture(_ kind: Gesture.Kind, _ id: ShapeID) -> Rejection {
        Rejection(.noGesture, "no \(kind) gesture in progress on \(id)")
    }

    /// An update of a move, a scale or a rotation (a drag's every step): as `gesture`, with the gesture moved
    /// out of the table for the step and back rather than copied. The steps read the other leases only
    /// through `gestures.slots` and `gestures.count`, which stand meanwhile.
    private mutating func step(
        _ slot: Int32, _ id: ShapeID, _ kind: Gesture.Kind, _ participant: Participant, identity: Bool, snaps: Bool,
        update: (inout Canvas, inout Gesture) -> Outcome
    ) throws(Rejection) -> Outcome {
        guard var g = gestures.take(slot) else { throw refusal(nil, slot, id, kind, participant) ?? Self.noGesture(kind, id) }
        if let refusal = refusal((g.owner, g.kind), slot, id, kind, participant) ?? (g.kind == kind ? nil : Self.noGesture(kind, id)) {
            gestures.putBack(g, at: slot)
            throw refusal
        }
        if !snaps { g.snaps = false }
        var outcome = identity ? Outcome() : update(&self, &g)
        if identity { outcome.changed = [backToOrigin(&g)] }
        gestures.putBack(g, at: slot)
        outcome.changed += liveFollowers(of: id)
        outcome.seq = seq
        return outcome
    }

    /// `outcome` of a gesture's step, or, on its end or a one-shot, what `commit` commits: guides end with
    /// the gesture, and a snap that engaged on this last step still gets its haptic.
    mutating func ended(_ outcome: consuming Outcome, _ phase: GesturePhase?, commit: (inout Canvas) -> Outcome) -> Outcome {
        if phase == nil || phase == .end {
            var result = commit(&self)
            result.events = outcome.events.filter { $0.haptic != nil }
            result.seq = seq
            return result
        }
        var result = outcome
        result.seq = seq
        return result
    }

    /// Puts the shape back exactly where the gesture began, holding no snap, and returns it.
    private mutating func backToOrigin(_ g: inout Gesture) -> Shape {
        g.xLock = nil
        g.yLock = nil
        g.angleLock = nil
        g.binding = nil
        store.setLive(g.origin, inSlot: g.slot, bounds: g.originBounds)
        return g.origin
    }

    mutating func move(_ g: inout Gesture, by t: Point) -> Outcome {
        let slot = g.slot
        var outcome = Outcome()
        let (center, bounds) = g.snaps ? snappedMove(&g, by: t, slot: slot, events: &outcome.events) : exactMove(g, by: t)
        outcome.changed = [store.moveLive(inSlot: slot, to: center, bounds: bounds)]
        return outcome
    }

    /// Where a move by `t` from the gesture's origin lands after snapping, with its guides and haptic.
    ///
    /// Non-mutating on purpose: the snap engine holds a copy of the store, and mutating the store while that
    /// copy lives would copy every shape (copy-on-write), turning an O(log n) update into O(n).
    func snappedMove(_ g: inout Gesture, by t: Point, slot: Int32, events: inout [CanvasEvent]) -> (Point, Rect) {
        let raw = g.originBounds.offsetBy(t)
        let engine = snapEngine(zoom: g.zoom, moving: slot)
        let (x, engagedX) = engine.resolve(.x, raw: raw, held: g.xLock, in: store)
        let (y, engagedY) = engine.resolve(.y, raw: raw, held: g.yLock, in: store)
        let snap = Point(x: x.map { $0.value - $0.probe.of(raw, .x) } ?? 0, y: y.map { $0.value - $0.probe.of(raw, .y) } ?? 0)
        let wanted = g.origin.center + t + snap
        // The shape stays on the canvas; a snap the clamp undoes is dropped.
        let center = wanted + keptIn(raw.offsetBy(snap), center: wanted)
        g.xLock = center.x == wanted.x ? x : nil
        g.yLock = center.y == wanted.y ? y : nil
        let bounds = g.originBounds.offsetBy(center - g.origin.center)

        let newX = g.xLock != nil && engagedX, newY = g.yLock != nil && engagedY
        // Room for the haptic and each held axis's guide or gap at once (on every drag update that snaps).
        let added = (newX || newY ? 1 : 0) + (g.xLock != nil ? 1 : 0) + (g.yLock != nil ? 1 : 0)
        if added > 0 { events.reserveCapacity(events.count + added) }
        if newX || newY {
            // One haptic however many axes engaged: an edge beats a gap, a gap beats the grid.
            let targets = [newX ? g.xLock!.target : nil, newY ? g.yLock!.target : nil].compactMap { $0 }
            let reason: Haptic.Reason = targets.contains { $0 != .grid && $0 != .gap } ? .edge : targets.contains(.gap) ? .gap : .grid
            events.append(.haptic(Haptic(reason: reason)))
        }
        // Each held axis shows its guide or gap.
        func mark(_ axis: Axis, _ held: inout AxisLock?) {
            guard var lock = held else { return }
            if let gap = lock.gap {
                events.append(.gap(gap))
            } else {
                events.append(.guide(engine.guide(axis, lock: &lock, bounds: bounds, in: store)))
            }
            held = lock
        }
        mark(.x, &g.xLock)
        mark(.y, &g.yLock)
        return (center, bounds)
    }

    /// Where an exact move (`snap: false`) by `t` lands: the origin moved by `t`, kept on the canvas.
    func exactMove(_ g: Gesture, by t: Point) -> (Point, Rect) {
        let wanted = g.origin.center + t
        let center = wanted + keptIn(g.originBounds.offsetBy(t), center: wanted)
        return (center, g.originBounds.offsetBy(center - g.origin.center))
    }

    /// The translation that keeps a shape with `bounds`, centred at `center`, on the canvas. On a bounded
    /// canvas the bounds come inside on each axis (a shape longer than the canvas on an axis is centred on
    /// it); on an unbounded one only the centre must stay on the canvas, the rest may hang outside.
    func keptIn(_ bounds: Rect, center: Point) -> Point {
        func axis(_ min: Double, _ max: Double, _ centre: Double, _ length: Double) -> Double {
            guard config.bounded else { return Swift.min(Swift.max(centre, 0), length) - centre }
            if max - min > length { return length / 2 - (min + max) / 2 }
            if min < 0 { return -min }
            if max > length { return length - max }
            return 0
        }
        return Point(x: axis(bounds.minX, bounds.maxX, center.x, config.width), y: axis(bounds.minY, bounds.maxY, center.y, config.height))
    }

    /// `shape` translated onto the canvas (`keptIn`), with its bounds.
    func keptIn(_ shape: Shape) -> (Shape, Rect) {
        var shape = shape
        let bounds = shape.bounds
        let offset = keptIn(bounds, center: shape.center)
        guard offset != .zero else { return (shape, bounds) }
        shape.center = shape.center + offset
        return (shape, bounds.offsetBy(offset))
    }

    mutating func scale(_ g: inout Gesture, by factor: Double, turning radians: Double, about anchor: Point?) -> Outcome {
        let longest = max(g.origin.size.width, g.origin.size.height) * g.origin.scale
        // A connector is bound by its own limits (P28), not the canvas's shape sizes.
        let (least, most) = g.origin.kind.isConnector ? (Shape.connectorThickness, Shape.maxConnectorLength) : (config.minSize, config.maxSize)
        let lower = least / longest, upper = max(most / longest, lower)
        let f = min(max(factor, lower), upper)
        var outcome = Outcome()
        // A turn snaps to the angle step as a rotate does; without one the rotation stays exactly as it was.
        let angle = radians == 0 ? g.origin.rotation : snappedAngle(&g, g.origin.rotation + radians, events: &outcome.events)
        let turn = AffineTransform.rotation(angle - g.origin.rotation)
        // The pinch centre stays under the fingers: the centre moves away from the anchor by the factor, and
        // around it by the turn.
        let anchor = anchor ?? g.origin.center
        let center = anchor + turn.applyToVector(g.origin.center - anchor) * f
        var shape = store.shape(inSlot: g.slot)
        shape.scale = g.origin.scale * f
        shape.rotation = Canvas.normalized(angle)
        shape.center = center
        let (kept, bounds) = keptIn(shape)
        store.setLive(kept, inSlot: g.slot, bounds: bounds)
        outcome.changed = [kept]
        return outcome
    }

    mutating func rotate(_ g: inout Gesture, by radians: Double) -> Outcome {
        var outcome = Outcome()
        let angle = snappedAngle(&g, g.origin.rotation + radians, events: &outcome.events)
        var shape = store.shape(inSlot: g.slot)
        shape.rotation = Canvas.normalized(angle)
        // A turn about the centre changes the bounds: the centre comes back from where the gesture began.
        shape.center = g.origin.center
        let (kept, bounds) = keptIn(shape)
        store.setLive(kept, inSlot: g.slot, bounds: bounds)
        outcome.changed = [kept]
        return outcome
    }

    /// `raw` snapped to the nearest angle step when within the tolerance (normalised then), with a haptic
    /// when the snap engages or changes step; `raw` itself otherwise.
    func snappedAngle(_ g: inout Gesture, _ raw: Double, events: inout [CanvasEvent]) -> Double {
        let step = config.snapping.angleStep
        let nearest = (raw / step).rounded() * step
        guard abs(raw - nearest) <= config.snapping.angleTolerance else {
            g.angleLock = nil
            return raw
        }
        let angle = Canvas.normalized(nearest)
        if g.angleLock != angle { events.append(.haptic(Haptic(reason: .angle))) }
        g.angleLock = angle
        return angle
    }

    /// `angle` in `0..<2π`.
    static func normalized(_ angle: Double) -> Double {
        let full = 2 * Double.pi
        var a = angle.truncatingRemainder(dividingBy: full)
        if a < 0 { a += full }
        return a < full ? a : 0
    }

    private func snapEngine(zoom: Double, moving slot: Int32) -> SnapEngine {
        SnapEngine(settings: config.snapping, grid: grid, store: store, zoom: zoom, moving: slot,
                   busy: gestures.count <= 1 ? nil : gestures.slots, busyCount: gestures.count)
    }

    /// Ends the gesture on `id` and commits the shape's live state. On a layout canvas a move first fits the
    /// shape to the cell under its centre or, when another shape holds that cell, to the nearest free cell
    /// (`freeCell`); with no free cell left the shape goes back to where it was before the gesture. A shape
    /// that ends where it was committed commits nothing: it goes back to its committed state, z included.
    private mutating func commitGesture(_ id: ShapeID) -> Outcome {
        let slot = store.slot(of: id)!
        if let token = gestures[slot]?.selection { return commitSelection(token) }
        let g = gestures.remove(slot)!
        if g.kind == .text { return commitText(g) }
        if case .endpoint = g.kind { return commitEndpoint(g) }
        var shape = store.shape(inSlot: slot)
        let before = Placement(of: g.committed)
        if let layout, g.kind == .move, !shape.kind.isConnector, !Placement(of: shape).isSamePlace(as: before) {
            if let frame = freeCell(layout, near: shape.center, moving: slot) {
                shape.center = frame.center
                shape.size = fitted(shape.kind, shape.size, to: frame.size, limits: config.minSize...config.maxSize)
                shape.scale = 1
                shape = keptIn(shape).0
            } else {
                shape = Placement(of: g.committed).applied(to: shape)
            }
        }
        guard !Placement(of: shape).isSamePlace(as: before) else { return uncommitted(g) }
        return commit(.place(Placement(of: shape), before: before))
    }

    /// Ends gesture `g` with nothing to commit: its shape goes back to exactly its committed state, and the
    /// z its begin took is given back when nothing was stacked above it since.
    mutating func uncommitted(_ g: Gesture) -> Outcome {
        let shape = Placement(of: g.committed).applied(to: store.shape(inSlot: g.slot))
        store.setLive(shape, inSlot: g.slot)
        store.reindex(shape.id)
        if g.origin.z != g.committed.z, nextZ == g.origin.z + 1 { nextZ = g.origin.z }
        var outcome = Outcome()
        // Connectors bound to the shape go back with it: the store already holds them as committed.
        outcome.changed = [shape] + (bindings[shape.id] ?? []).sorted().compactMap { store.shape($0) }
        outcome.unchanged = true
        outcome.seq = seq
        return outcome
    }
}
