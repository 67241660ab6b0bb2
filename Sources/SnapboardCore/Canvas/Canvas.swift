#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The authoritative state of one whiteboard: shapes, gestures in progress and the sequence of committed
/// operations. Pure and deterministic: the same operations applied to the same canvas give the same result,
/// on every run.
public struct Canvas: Sendable {
    /// The config cannot make a canvas.
    public struct InvalidConfig: Error, Hashable, Sendable {
        public var message: String
    }

    public let id: String
    public let config: CanvasConfig
    public let grid: IntersectionGrid
    public let layout: LayoutGrid?
    /// The number of committed operations so far; each commit adds exactly one.
    public private(set) var seq: Int = 0
    /// The generator for default colours, seeded from the canvas id.
    public private(set) var rng: SeededGenerator
    /// The z the next shape brought to the front gets.
    private(set) var nextZ = 0
    var store: ShapeStore
    /// Gestures in progress, by the slot of their shape. Their slots are not snap candidates.
    var gestures = GestureTable()

    /// How many shapes are under a gesture.
    public var leaseCount: Int { gestures.count }
    /// Changes whenever a lease is taken or given up, so a caller can tell whether `leases` changed
    /// without building it: a drag's update leaves it alone.
    public var leaseVersion: Int { gestures.version }

    /// An empty canvas.
    public init(id: String, config: CanvasConfig = CanvasConfig()) throws(InvalidConfig) {
        if let problem = config.problem { throw InvalidConfig(message: problem) }
        self.id = id
        self.config = config
        self.grid = config.grid!
        self.layout = config.layoutGrid
        self.rng = SeededGenerator(seed: id)
        self.store = ShapeStore(width: config.width, height: config.height)
    }

    /// Rebuilds a canvas from a snapshot, with no gesture in progress.
    public init(snapshot: CanvasSnapshot) throws(InvalidConfig) {
        try self.init(id: snapshot.id, config: snapshot.config)
        for shape in snapshot.shapes {
            store.insert(shape)
            nextZ = max(nextZ, shape.z + 1)
        }
        seq = snapshot.seq
        rng = SeededGenerator(state: snapshot.rng)
    }

    /// The number of shapes.
    public var count: Int { store.count }

    /// The shape with `id`, in its live state (mid-gesture shapes where their gesture has them).
    public func shape(_ id: ShapeID) -> Shape? { store.shape(id) }

    /// Every shape in its live state, bottom to top.
    public var shapes: [Shape] { store.shapes.sorted(by: Canvas.drawingOrder) }

    /// The ids of shapes under a gesture, with the participant holding each lease.
    public var leases: [ShapeID: String] {
        Dictionary(uniqueKeysWithValues: gestures.bySlot.map { (store.shape(inSlot: $0.key).id, $0.value.owner) })
    }

    /// The gesture on the shape with `id`, if any.
    func gesture(on id: ShapeID) -> Gesture? { store.slot(of: id).flatMap { gestures[$0] } }

    static func drawingOrder(_ a: Shape, _ b: Shape) -> Bool { (a.z, a.id) < (b.z, b.id) }

    // MARK: Applying operations

    /// Applies `op` on behalf of `participant`.
    ///
    /// Returns what changed, or throws the reason it was refused; a refused operation changes nothing.
    public mutating func apply(_ op: CanvasOp, by participant: Participant) throws(Rejection) -> Outcome {
        switch op {
        case .snap(let at, let shapeID, let spec):
            return try snap(at: at, shapeID: shapeID, spec: spec)
        case .clear:
            return clear()
        case .delete(let ids):
            return try delete(ids, by: participant)
        case .undo:
            throw Rejection(.nothingToUndo, "undo is resolved by the room, which keeps each client's history")
        case .redo:
            throw Rejection(.nothingToRedo, "redo is resolved by the room, which keeps each client's history")
        case .move(let id, let phase, let t):
            try Canvas.requireFinite(t.x, t.y)
            return try gesture(id, .move, phase, participant, identity: t == .zero) { c, g in c.move(&g, by: t) }
        case .scale(let id, let phase, let factor, let anchor, let radians):
            try Canvas.requireFinite(factor, anchor?.x ?? 0, anchor?.y ?? 0, radians)
            guard factor > 0 else { throw Rejection(.outOfRange, "scale factor must be positive") }
            guard abs(radians) <= 1_000 else { throw Rejection(.outOfRange, "rotation must be within ±1000 radians") }
            if let anchor, !Rect(x: 0, y: 0, width: config.width, height: config.height).contains(anchor) {
                throw Rejection(.outOfBounds, "scale anchor lies outside the canvas")
            }
            return try gesture(id, .scale, phase, participant, identity: factor == 1 && radians == 0) { c, g in
                c.scale(&g, by: factor, turning: radians, about: anchor)
            }
        case .rotate(let id, let phase, let radians):
            try Canvas.requireFinite(radians)
            guard abs(radians) <= 1_000 else { throw Rejection(.outOfRange, "rotation must be within ±1000 radians") }
            return try gesture(id, .rotate, phase, participant, identity: radians == 0) { c, g in c.rotate(&g, by: radians) }
        }
    }

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

    private static func requireFinite(_ values: Double...) throws(Rejection) {
        guard values.allSatisfy(\.isFinite) else { throw Rejection(.notFinite, "numbers must be finite") }
    }

    private mutating func snap(at tap: Point, shapeID: ShapeID?, spec: ShapeSpec) throws(Rejection) -> Outcome {
        try Canvas.requireFinite(tap.x, tap.y, spec.width ?? 0, spec.height ?? 0, spec.innerRatio ?? 0.5)
        guard Rect(x: 0, y: 0, width: config.width, height: config.height).contains(tap) else {
            throw Rejection(.outOfBounds, "tap lies outside the canvas")
        }
        if let shapeID {
            guard Shape.isValidID(shapeID) else { throw Rejection(.badShapeID, "shape ids are 1–64 of [A-Za-z0-9_-]") }
            guard store.slot(of: shapeID) == nil else { throw Rejection(.badShapeID, "shape \(shapeID) already exists") }
        }
        guard store.count < config.maxShapes else { throw Rejection(.canvasFull, "the canvas holds \(config.maxShapes) shapes") }
        let kind = try ShapeKind.make(
            name: spec.kind, sides: spec.sides, points: spec.points, innerRatio: spec.innerRatio, depth: spec.depth)
        let side = ShapeSpec.defaultSize(for: kind)
        var size = Size(width: spec.width ?? side, height: kind == .dot ? spec.width ?? side : spec.height ?? side)
        let sizes = config.minSize...config.maxSize
        guard sizes.contains(size.width), sizes.contains(size.height) else {
            throw Rejection(.badShape, "width and height must be within \(config.minSize)...\(config.maxSize)")
        }
        if let fill = spec.fill, !fill.isValid { throw Rejection(.badShape, "fill components must be within 0...1") }

        // Validated: from here on the operation commits.
        var center = grid.snap(tap)
        if let layout {
            let frame = layout.snappedFrame(centeredAt: tap)
            center = frame.center
            size = Canvas.fitted(kind, to: frame.size, limits: sizes)
        }
        let fill = spec.fill ?? .seedDefault(hue: rng.nextUnit())
        let shape = Shape(
            id: shapeID ?? freshID(), kind: kind, center: center, size: size,
            fill: fill, hatch: spec.hatch ?? .none, z: nextZ)
        return commit(.create(shape, rng: rng.state))
    }

    /// A size that fills `cell`: dots stay round.
    private static func fitted(_ kind: ShapeKind, to cell: Size, limits: ClosedRange<Double>) -> Size {
        func clamp(_ v: Double) -> Double { min(max(v, limits.lowerBound), limits.upperBound) }
        if kind == .dot {
            let d = clamp(min(cell.width, cell.height))
            return Size(width: d, height: d)
        }
        return Size(width: clamp(cell.width), height: clamp(cell.height))
    }

    /// `s<next seq>`, suffixed if a client already took that id.
    private func freshID() -> ShapeID {
        let base = "s\(seq + 1)"
        var candidate = base, n = 1
        while store.slot(of: candidate) != nil {
            candidate = "\(base)-\(n)"
            n += 1
        }
        return candidate
    }

    private mutating func clear() -> Outcome {
        commit(.clear(removed: committedShapes))
    }

    /// The most shapes one `delete` may name.
    public static let maxDeleted = 1_000

    /// Removes `ids`, all or none: each must exist and be free of other sessions' gestures. A gesture the
    /// participant itself holds on one of them ends with it.
    private mutating func delete(_ ids: [ShapeID], by participant: Participant) throws(Rejection) -> Outcome {
        guard (1...Canvas.maxDeleted).contains(ids.count) else {
            throw Rejection(.outOfRange, "delete names 1–\(Canvas.maxDeleted) shapes")
        }
        var seen = Set<ShapeID>(), shapes: [Shape] = []
        for id in ids where seen.insert(id).inserted {
            guard let shape = store.shape(id) else { throw Rejection(.unknownShape, "no shape \(id.prefix(64))") }
            if let owner = gesture(on: id)?.owner, owner != participant.id {
                throw Rejection(.shapeLocked, "another session is changing shape \(id)")
            }
            shapes.append(shape)
        }
        return commit(.remove(shapes))
    }

    /// Every shape in its committed state (a shape under a gesture as it was before the gesture), bottom to top.
    var committedShapes: [Shape] {
        var shapes: [Shape] = []
        shapes.reserveCapacity(store.count)
        for (i, slot) in store.slots.enumerated() where !slot.isFree { shapes.append(gestures[Int32(i)]?.committed ?? slot.shape) }
        return shapes.sorted(by: Canvas.drawingOrder)
    }

    // MARK: Undo

    /// What reverting `effect` (a commit of this canvas) would commit now, and the shapes it leaves alone
    /// because of what happened since: a shape someone else changed, removed or re-created since
    /// (`changedSince`, `unknownShape`) or one under a gesture (`shapeLocked`). Nil when nothing is left
    /// to revert. Pure: applying the result is `apply(effect:)`.
    public func reverting(_ effect: CommittedOp) -> (effect: CommittedOp?, skipped: [(shape: ShapeID, code: Rejection.Code)]) {
        var skipped: [(shape: ShapeID, code: Rejection.Code)] = []
        /// The shape with `id`, when it is still exactly as `expected` left it and free.
        func unchanged(_ id: ShapeID, _ expected: Placement) -> Shape? {
            guard let shape = store.shape(id) else { skipped.append((id, .unknownShape)); return nil }
            guard gesture(on: id) == nil else { skipped.append((id, .shapeLocked)); return nil }
            guard Placement(of: shape) == expected else { skipped.append((id, .changedSince)); return nil }
            return shape
        }
        /// `shapes` that may come back: none of their ids is taken since.
        func restorable(_ shapes: [Shape]) -> [Shape] {
            shapes.filter { shape in
                guard store.slot(of: shape.id) != nil else { return true }
                skipped.append((shape.id, .changedSince))
                return false
            }
        }
        let result: CommittedOp?
        switch effect {
        case .create(let shape, _):
            result = unchanged(shape.id, Placement(of: shape)).map { .remove([$0]) }
        case .place(let after, let before):
            guard let before else { return (nil, []) }
            result = unchanged(after.id, after).map { _ in .place(before, before: after) }
        case .restore(let shapes):
            let current = shapes.compactMap { unchanged($0.id, Placement(of: $0)) }
            result = current.isEmpty ? nil : .remove(current)
        case .remove(let shapes), .clear(let shapes):
            let back = restorable(shapes)
            result = back.isEmpty ? nil : .restore(back)
        }
        return (result, skipped)
    }

    /// Commits a resolved effect (what `reverting` gives) as the next op: the same path as replay.
    public mutating func apply(effect: CommittedOp) -> Outcome {
        commit(effect)
    }

    /// Applies one phase of a gesture. `update` moves `gesture` from its origin by the cumulative parameters,
    /// which are the `identity` at a begin: a shape picked up stays exactly where it was, even next to an edge.
    /// A begin with other parameters applies them as its first update.
    private mutating func gesture(
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

    private mutating func move(_ g: inout Gesture, by t: Point) -> Outcome {
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

    private mutating func scale(_ g: inout Gesture, by factor: Double, turning radians: Double, about anchor: Point?) -> Outcome {
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

    private mutating func rotate(_ g: inout Gesture, by radians: Double) -> Outcome {
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

    // MARK: Committing and replaying

    /// Applies a committed effect and counts it: the single path shared by live operations and replay.
    @discardableResult
    private mutating func commit(_ op: CommittedOp) -> Outcome {
        var outcome = Outcome()
        switch op {
        case .create(let shape, let rngState):
            store.insert(shape)
            rng.state = rngState
            nextZ = max(nextZ, shape.z + 1)
            outcome.changed = [shape]
        case .place(let placement, _):
            // A sound log never places a missing shape; a damaged one is tolerated rather than trapped on.
            if let slot = store.slot(of: placement.id) {
                let shape = placement.applied(to: store.shape(inSlot: slot))
                store.setLive(shape)
                store.reindex(shape.id)
                nextZ = max(nextZ, shape.z + 1)
                outcome.changed = [shape]
            }
        case .clear:
            store.removeAll()
            gestures.removeAll()
            nextZ = 0
            outcome.cleared = true
        case .remove(let shapes):
            for shape in shapes {
                guard let slot = store.slot(of: shape.id) else { continue }
                gestures.remove(slot)
                store.remove(shape.id)
                outcome.removed.append(shape.id)
            }
        case .restore(let shapes):
            for shape in shapes where store.slot(of: shape.id) == nil {
                store.insert(shape)
                nextZ = max(nextZ, shape.z + 1)
                outcome.changed.append(shape)
            }
        }
        seq += 1
        outcome.commit = op
        outcome.seq = seq
        return outcome
    }

    /// Reapplies many effects from the op log, in order: the same result as replaying them one by one,
    /// faster, because the snapping indexes are rebuilt once at the end instead of kept sorted throughout.
    public mutating func replay(contentsOf ops: some Sequence<CommittedOp>) {
        store.deferIndexing = true
        for op in ops { commit(op) }
        store.rebuildIndexes()
    }

    /// Reapplies an effect from the op log and returns what it changed. Replaying a canvas's commits, in
    /// order, on the snapshot taken before them reproduces its committed state exactly.
    @discardableResult
    public mutating func replay(_ op: CommittedOp) -> Outcome {
        commit(op)
    }
}
