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
    public internal(set) var seq: Int = 0
    /// The generator for default colours, seeded from the canvas id.
    public internal(set) var rng: SeededGenerator
    /// The z the next shape brought to the front gets.
    var nextZ = 0
    var store: ShapeStore
    /// Gestures in progress, by the slot of their shape. Their slots are not snap candidates.
    var gestures = GestureTable()
    /// The connectors with an end bound to each shape, as committed (1.7, P28).
    var bindings: [ShapeID: Set<ShapeID>] = [:]
    /// The shapes each connector's ends are bound to, as committed: the same index the other way round.
    var boundTo: [ShapeID: [ShapeID]] = [:]
    /// Selection gestures in progress (1.7, P29), by the key their members' gestures carry.
    var selections: [Int: SelectionGesture] = [:]
    /// The key the next selection gesture takes.
    var nextSelection = 1

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

    /// Rebuilds a canvas from a snapshot, with no gesture in progress; refuses one whose numbers are out of
    /// range (`CanvasSnapshot.problem`), so nothing computed from it later can overflow.
    public init(snapshot: CanvasSnapshot) throws(InvalidConfig) {
        if let problem = snapshot.problem { throw InvalidConfig(message: problem) }
        try self.init(id: snapshot.id, config: snapshot.config)
        for shape in snapshot.shapes {
            store.insert(shape)
            nextZ = max(nextZ, shape.z + 1)
        }
        seq = snapshot.seq
        rng = SeededGenerator(state: snapshot.rng)
        rebuildBindings()
    }

    /// The number of shapes.
    public var count: Int { store.count }

    /// The shape with `id`, in its live state (mid-gesture shapes where their gesture has them).
    public func shape(_ id: ShapeID) -> Shape? { store.shape(id) }

    /// The shapes with these ids that exist, in the order given, in their live state.
    public func shapes(_ ids: [ShapeID]) -> [Shape] {
        var shapes: [Shape] = []
        shapes.reserveCapacity(ids.count)
        for id in ids {
            if let slot = store.slot(of: id) { shapes.append(store.shape(inSlot: slot)) }
        }
        return shapes
    }

    /// Every shape in its live state, bottom to top.
    public var shapes: [Shape] { store.shapes.sorted(by: Canvas.drawingOrder) }

    /// The ids of shapes under a gesture, with the participant holding each lease.
    public var leases: [ShapeID: String] { Dictionary(uniqueKeysWithValues: leaseHolders.map { ($0.shape, $0.owner) }) }

    /// The same leases in the order of their shape ids: what presence and welcomes list, built without
    /// hashing an id or copying a gesture out of its table.
    public var leaseHolders: [(shape: ShapeID, owner: String)] {
        var holders: [(shape: ShapeID, owner: String)] = []
        holders.reserveCapacity(gestures.count)
        gestures.forEach { slot, gesture in holders.append((store.shape(inSlot: slot).id, gesture.owner)) }
        holders.sort { $0.shape < $1.shape }
        return holders
    }

    /// The gesture on the shape with `id`, if any.
    func gesture(on id: ShapeID) -> Gesture? { store.slot(of: id).flatMap { gestures[$0] } }

    /// The participant whose gesture holds the shape with `id`, if one does.
    public func leaseHolder(of id: ShapeID) -> String? { gesture(on: id)?.owner }

    static func drawingOrder(_ a: Shape, _ b: Shape) -> Bool { (a.z, a.id) < (b.z, b.id) }

    /// Applies `op` on behalf of `participant`.
    ///
    /// Returns what changed, or throws the reason it was refused; a refused operation changes nothing.
    public mutating func apply(_ op: CanvasOp, by participant: Participant) throws(Rejection) -> Outcome {
        try requireSeqRoom()
        switch op {
        case .snap(let at, let shapeID, let spec):
            return try snap(at: at, shapeID: shapeID, spec: spec)
        case .clear:
            return clear()
        case .delete(let ids):
            return try delete(ids, by: participant)
        case .order(let ids, let move):
            return try order(ids, to: move)
        case .lock(let ids, let locked):
            return try lock(ids, locked: locked)
        case .style(let ids, let patch):
            return try style(ids, patch)
        case .text(let id, let phase, let newText):
            return try self.text(id, phase, newText, by: participant)
        case .duplicate(let ids, let newIDs):
            return try duplicate(ids, as: newIDs)
        case .group(let ids):
            return try group(ids)
        case .ungroup(let ids):
            return try ungroup(ids)
        case .connect(let shapeID, let spec, let from, let to):
            return try connect(shapeID: shapeID, spec: spec, from: from, to: to, zoom: participant.zoom)
        case .endpoint(let id, let end, let phase, let t):
            try Canvas.requireTranslation(t)
            guard let shape = store.shape(id) else { throw Rejection(.unknownShape, "no shape \(id.prefix(64))") }
            guard shape.kind.isConnector else { throw Rejection(.badShape, "shape \(id) is not a line or an arrow") }
            return try gesture(id, .endpoint(end), phase, participant, identity: t == .zero) { c, g in c.dragEnd(&g, end, by: t) }
        case .undo:
            throw Rejection(.nothingToUndo, "undo is resolved by the room, which keeps each client's history")
        case .redo:
            throw Rejection(.nothingToRedo, "redo is resolved by the room, which keeps each client's history")
        case .move(let id, let phase, let t, let snaps):
            try Canvas.requireTranslation(t)
            return try gesture(id, .move, phase, participant, identity: t == .zero, snaps: snaps) { c, g in c.move(&g, by: t) }
        case .scale(let id, let phase, let factor, let anchor, let radians):
            try Canvas.requireFinite(factor, anchor?.x ?? 0, anchor?.y ?? 0, radians)
            guard factor > 0, factor <= Canvas.maxLength else { throw Rejection(.outOfRange, "scale factor must be in (0, 1000000]") }
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
        case .moveMany(let ids, let phase, let t, let snaps):
            try Canvas.requireTranslation(t)
            return try selectionGesture(ids, .move, phase, participant, snaps: snaps, change: .move(t))
        case .scaleMany(let ids, let phase, let factor, let anchor, let radians):
            try Canvas.requireFinite(factor, anchor?.x ?? 0, anchor?.y ?? 0, radians)
            guard factor > 0, factor <= Canvas.maxLength else { throw Rejection(.outOfRange, "scale factor must be in (0, 1000000]") }
            guard abs(radians) <= 1_000 else { throw Rejection(.outOfRange, "rotation must be within ±1000 radians") }
            if let anchor, !Rect(x: 0, y: 0, width: config.width, height: config.height).contains(anchor) {
                throw Rejection(.outOfBounds, "scale anchor lies outside the canvas")
            }
            return try selectionGesture(ids, .scale, phase, participant, change: .scale(factor, anchor, radians))
        case .rotateMany(let ids, let phase, let radians):
            try Canvas.requireFinite(radians)
            guard abs(radians) <= 1_000 else { throw Rejection(.outOfRange, "rotation must be within ±1000 radians") }
            return try selectionGesture(ids, .rotate, phase, participant, change: .scale(1, nil, radians))
        }
    }

    /// Refuses every live operation once the seq reaches `Canvas.lastLiveSeq`.
    public func requireSeqRoom() throws(Rejection) {
        guard seq < Canvas.lastLiveSeq else { throw Rejection(.outOfRange, "the canvas has used up its sequence numbers") }
    }

    /// Refuses to stack a shape on top once the next z would pass `Canvas.maxZ`.
    func requireZRoom(_ shapes: Int = 1) throws(Rejection) {
        guard nextZ <= Canvas.maxZ - (shapes - 1) else { throw Rejection(.outOfRange, "the canvas has used up its stacking order (z)") }
    }

    /// Refuses a translation that is not finite (`not_finite`) or beyond ±2,000,000 on an axis (`out_of_range`).
    static func requireTranslation(_ t: Point) throws(Rejection) {
        try requireFinite(t.x, t.y)
        guard abs(t.x) <= 2 * maxLength, abs(t.y) <= 2 * maxLength else {
            throw Rejection(.outOfRange, "a move is at most ±2000000 on each axis")
        }
    }

    static func requireFinite(_ values: Double...) throws(Rejection) {
        guard values.allSatisfy(\.isFinite) else { throw Rejection(.notFinite, "numbers must be finite") }
    }

    /// Every shape in its committed state (a shape under a gesture as it was before the gesture), bottom to top.
    var committedShapes: [Shape] {
        var shapes: [Shape] = []
        shapes.reserveCapacity(store.count)
        for (i, slot) in store.slots.enumerated() where !slot.isFree { shapes.append(gestures[Int32(i)]?.committed ?? slot.shape) }
        return shapes.sorted(by: Canvas.drawingOrder)
    }
}
