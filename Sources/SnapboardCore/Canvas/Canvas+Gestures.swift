/// Gestures: a move, scale or rotate leases its shape from its begin to its end, snapping as it goes, and
/// commits where the shape was last put.
extension Canvas {
    /// Ends every gesture `owner` holds, committing each shape where it was last put: what happens when a
    /// session disconnects. One outcome per commit, in shape-id order.
    public mutating func endGestures(ownedBy owner: String) -> [Outcome] {
        gestures.bySlot.filter { $0.value.owner == owner }.keys.map { store.shape(inSlot: $0).id }.sorted().map { commitGesture($0) }
    }

    /// Ends the gesture on `id`, committing the shape where it was last put: what happens when a lease
    /// expires. Nil when no gesture is in progress on it.
    public mutating func endGesture(on id: ShapeID) -> Outcome? {
        gesture(on: id) == nil ? nil : commitGesture(id)
    }

    /// Applies one phase of a gesture. `update` moves `gesture` from its origin by the cumulative parameters,
    /// which are the `identity` at a begin: a shape picked up stays exactly where it was, even next to an edge.
    /// A begin with other parameters applies them as its first update.
    mutating func gesture(
        _ id: ShapeID, _ kind: Gesture.Kind, _ phase: GesturePhase?, _ participant: Participant, identity: Bool,
        update: (inout Canvas, inout Gesture) -> Outcome
    ) throws(Rejection) -> Outcome {
        guard let slot = store.slot(of: id) else { throw Rejection(.unknownShape, "no shape \(id.prefix(64))") }
        let current = gestures[slot]
        if let current, current.owner != participant.id {
            throw Rejection(.shapeLocked, "another session is changing shape \(id)")
        }
        var g: Gesture
        switch phase {
        case .begin?, nil:
            // A begin by the lease holder re-bases the gesture on the live state, so nothing jumps.
            var origin = store.shape(inSlot: slot)
            let committed = current?.committed ?? origin
            if origin.z != nextZ - 1 || nextZ == 0 {
                try requireZRoom()
                origin.z = nextZ
                nextZ += 1
                store.setLive(origin, bounds: store.bounds(inSlot: slot))
            }
            g = Gesture(owner: participant.id, kind: kind, slot: slot, committed: committed, origin: origin,
                        originBounds: store.bounds(inSlot: slot), zoom: participant.zoom)
        case .update?, .end?:
            guard let current, current.kind == kind else { throw Rejection(.noGesture, "no \(kind) gesture in progress on \(id)") }
            g = current
        }
        var outcome = Outcome()
        if phase == .begin, identity {
            outcome.changed = [store.shape(inSlot: slot)]
        } else {
            outcome = update(&self, &g)
        }
        gestures.set(g, at: slot)
        if phase == nil || phase == .end {
            // Guides end with the gesture; a snap that engaged on this last step still gets its haptic.
            let haptics = outcome.events.filter { if case .haptic = $0 { true } else { false } }
            outcome = commitGesture(id)
            outcome.events = haptics
        }
        outcome.seq = seq
        return outcome
    }

    mutating func move(_ g: inout Gesture, by t: Point) -> Outcome {
        let slot = g.slot
        var outcome = Outcome()
        let (center, bounds) = snappedMove(&g, by: t, slot: slot, events: &outcome.events)
        var shape = store.shape(inSlot: slot)
        shape.center = center
        store.setLive(shape, inSlot: slot, bounds: bounds)
        outcome.changed = [shape]
        return outcome
    }

    /// Where a move by `t` from the gesture's origin lands after snapping, with its guides and haptic.
    ///
    /// Non-mutating on purpose: the snap engine holds a copy of the store, and mutating the store while that
    /// copy lives would copy every shape (copy-on-write), turning an O(log n) update into O(n).
    private func snappedMove(_ g: inout Gesture, by t: Point, slot: Int32, events: inout [CanvasEvent]) -> (Point, Rect) {
        let raw = g.originBounds.offsetBy(t)
        let engine = snapEngine(zoom: g.zoom, moving: slot)
        let (x, engagedX) = engine.resolve(.x, raw: raw, held: g.xLock)
        let (y, engagedY) = engine.resolve(.y, raw: raw, held: g.yLock)
        let snap = Point(x: x.map { $0.value - $0.probe.of(raw, .x) } ?? 0, y: y.map { $0.value - $0.probe.of(raw, .y) } ?? 0)
        let wanted = g.origin.center + t + snap
        // The centre stays on the canvas; a snap the clamp undoes is dropped.
        let center = Point(x: min(max(wanted.x, 0), config.width), y: min(max(wanted.y, 0), config.height))
        g.xLock = center.x == wanted.x ? x : nil
        g.yLock = center.y == wanted.y ? y : nil
        let bounds = g.originBounds.offsetBy(center - g.origin.center)

        let newX = g.xLock != nil && engagedX, newY = g.yLock != nil && engagedY
        if newX || newY {
            // One haptic however many axes engaged: an edge beats a gap, a gap beats the grid.
            let targets = [newX ? g.xLock!.target : nil, newY ? g.yLock!.target : nil].compactMap { $0 }
            let reason: Haptic.Reason = targets.contains { $0 != .grid && $0 != .gap } ? .edge : targets.contains(.gap) ? .gap : .grid
            events.append(.haptic(Haptic(reason: reason)))
        }
        for axis in [Axis.x, .y] {
            guard var lock = axis == .x ? g.xLock : g.yLock else { continue }
            if let gap = lock.gap {
                events.append(.gap(gap))
            } else {
                events.append(.guide(engine.guide(axis, lock: &lock, bounds: bounds)))
            }
            if axis == .x { g.xLock = lock } else { g.yLock = lock }
        }
        return (center, bounds)
    }

    mutating func scale(_ g: inout Gesture, by factor: Double, turning radians: Double, about anchor: Point?) -> Outcome {
        let longest = max(g.origin.size.width, g.origin.size.height) * g.origin.scale
        let lower = config.minSize / longest, upper = max(config.maxSize / longest, lower)
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
        shape.center = Point(x: min(max(center.x, 0), config.width), y: min(max(center.y, 0), config.height))
        store.setLive(shape, inSlot: g.slot)
        outcome.changed = [shape]
        return outcome
    }

    mutating func rotate(_ g: inout Gesture, by radians: Double) -> Outcome {
        var outcome = Outcome()
        let angle = snappedAngle(&g, g.origin.rotation + radians, events: &outcome.events)
        var shape = store.shape(inSlot: g.slot)
        shape.rotation = Canvas.normalized(angle)
        store.setLive(shape, inSlot: g.slot)
        outcome.changed = [shape]
        return outcome
    }

    /// `raw` snapped to the nearest angle step when within the tolerance (normalised then), with a haptic
    /// when the snap engages or changes step; `raw` itself otherwise.
    private func snappedAngle(_ g: inout Gesture, _ raw: Double, events: inout [CanvasEvent]) -> Double {
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

    /// Ends the gesture on `id` and commits the shape's live state; on a layout canvas a move first fits
    /// the shape to the cell under its centre.
    private mutating func commitGesture(_ id: ShapeID) -> Outcome {
        let slot = store.slot(of: id)!
        let g = gestures.remove(slot)!
        var shape = store.shape(inSlot: slot)
        if let layout, g.kind == .move {
            let frame = layout.snappedFrame(centeredAt: shape.center)
            shape.center = frame.center
            shape.size = Canvas.fitted(shape.kind, to: frame.size, limits: config.minSize...config.maxSize)
            shape.scale = 1
        }
        return commit(.place(Placement(of: shape), before: Placement(of: g.committed)))
    }
}
