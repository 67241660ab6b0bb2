/// The shapes of one canvas with their cached bounds and the per-axis edge indexes.
///
/// Each shape lives in a numbered slot, so the indexes can name owners with a small integer.
/// A shape being dragged changes many times a second; its indexed edges are refreshed only when the
/// gesture commits (`reindex`), which keeps each update O(log n).
struct ShapeStore: Sendable {
    struct Slot: Sendable {
        var shape: Shape
        var bounds: Rect
        /// The bounds whose edges are in the indexes right now.
        var indexed: Rect
        /// True while the slot holds no shape (its shape was removed; the slot waits in `freeSlots`).
        var isFree = false
    }

    let width: Double
    let height: Double
    private(set) var slots: [Slot] = []
    /// Slots whose shape was removed, reused by the next insertions.
    private var freeSlots: [Int32] = []
    private(set) var slotOf: [ShapeID: Int32] = [:]
    private(set) var xEdges = EdgeIndex()
    private(set) var yEdges = EdgeIndex()
    /// Every shape's indexed bounds by cell, for gap snapping.
    private(set) var cells: CellIndex
    /// Grows whenever an index changes, so callers can cache what they derived from it.
    private(set) var revision = 0

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
        cells = CellIndex(width: width, height: height)
        for v in [0, width / 2, width] { xEdges.insert(v, owner: EdgeIndex.canvasOwner) }
        for v in [0, height / 2, height] { yEdges.insert(v, owner: EdgeIndex.canvasOwner) }
    }

    var count: Int { slotOf.count }

    func edges(_ axis: Axis) -> EdgeIndex { axis == .x ? xEdges : yEdges }

    func slot(of id: ShapeID) -> Int32? { slotOf[id] }

    func shape(_ id: ShapeID) -> Shape? { slotOf[id].map { slots[Int($0)].shape } }

    func shape(inSlot slot: Int32) -> Shape { slots[Int(slot)].shape }

    func bounds(inSlot slot: Int32) -> Rect { slots[Int(slot)].bounds }

    /// Every shape, in no particular order.
    var shapes: some Sequence<Shape> { slots.lazy.filter { !$0.isFree }.map(\.shape) }

    /// True while a bulk replay defers index maintenance to one `rebuildIndexes()` at its end.
    var deferIndexing = false

    mutating func insert(_ shape: Shape) {
        let bounds = shape.bounds
        let entry = Slot(shape: shape, bounds: bounds, indexed: bounds)
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            slots[Int(slot)] = entry
        } else {
            slot = Int32(slots.count)
            slots.append(entry)
        }
        slotOf[shape.id] = slot
        if !deferIndexing { addEdges(bounds, slot) }
    }

    /// Rebuilds both edge indexes from every shape's live bounds in one sort: O(n log n), where keeping
    /// them sorted through a bulk replay would cost O(n) per op.
    mutating func rebuildIndexes() {
        var x: [(Double, Int32)] = [], y: [(Double, Int32)] = []
        x.reserveCapacity(slots.count * 3 + 3)
        y.reserveCapacity(slots.count * 3 + 3)
        for v in [0, width / 2, width] { x.append((v, EdgeIndex.canvasOwner)) }
        for v in [0, height / 2, height] { y.append((v, EdgeIndex.canvasOwner)) }
        for (i, slot) in slots.enumerated() where !slot.isFree {
            let b = slot.bounds
            for v in [b.minX, b.midX, b.maxX] { x.append((v, Int32(i))) }
            for v in [b.minY, b.midY, b.maxY] { y.append((v, Int32(i))) }
            slots[i].indexed = b
        }
        cells = CellIndex(width: width, height: height)
        for (i, slot) in slots.enumerated() where !slot.isFree { cells.insert(slot.bounds, Int32(i)) }
        xEdges = EdgeIndex(sorted: x.sorted { ($0.0, $0.1) < ($1.0, $1.1) })
        yEdges = EdgeIndex(sorted: y.sorted { ($0.0, $0.1) < ($1.0, $1.1) })
        revision += 1
        deferIndexing = false
    }

    /// Replaces a shape's live state; its indexed edges stay as they were until `reindex`.
    mutating func setLive(_ shape: Shape, bounds: Rect? = nil) {
        setLive(shape, inSlot: slotOf[shape.id]!, bounds: bounds)
    }

    /// `setLive` for a caller that knows the slot: no id lookup on the drag path.
    mutating func setLive(_ shape: Shape, inSlot slot: Int32, bounds: Rect? = nil) {
        let slot = Int(slot)
        slots[slot].shape = shape
        slots[slot].bounds = bounds ?? shape.bounds
    }

    /// The shape in `slot` moved to `center`, with live bounds `bounds`, where the store holds it (no copy out
    /// and back); returns it.
    mutating func moveLive(inSlot slot: Int32, to center: Point, bounds: Rect) -> Shape {
        let slot = Int(slot)
        slots[slot].shape.center = center
        slots[slot].bounds = bounds
        return slots[slot].shape
    }

    /// The kind of the shape in `slot`, read without copying the shape out.
    func kind(inSlot slot: Int32) -> ShapeKind { slots[Int(slot)].shape.kind }

    /// `change` made to the shape in `slot` where the store holds it (no copy out and back), then its live
    /// bounds updated, as `setLive` would.
    mutating func modify(inSlot slot: Int32, _ change: (inout Shape) -> Void) {
        let slot = Int(slot)
        change(&slots[slot].shape)
        slots[slot].bounds = slots[slot].shape.bounds
    }

    /// Makes the indexes agree with the shape's live bounds.
    mutating func reindex(_ id: ShapeID) {
        guard !deferIndexing else { return }
        let slot = slotOf[id]!
        let s = slots[Int(slot)]
        guard s.indexed != s.bounds else { return }
        removeEdges(s.indexed, slot)
        addEdges(s.bounds, slot)
        slots[Int(slot)].indexed = s.bounds
    }

    /// Removes one shape; its slot is reused by a later insertion.
    mutating func remove(_ id: ShapeID) {
        guard let slot = slotOf.removeValue(forKey: id) else { return }
        if !deferIndexing { removeEdges(slots[Int(slot)].indexed, slot) }
        slots[Int(slot)].isFree = true
        freeSlots.append(slot)
    }

    mutating func removeAll() {
        self = ShapeStore(width: width, height: height)
    }

    private mutating func addEdges(_ b: Rect, _ slot: Int32) {
        for v in [b.minX, b.midX, b.maxX] { xEdges.insert(v, owner: slot) }
        for v in [b.minY, b.midY, b.maxY] { yEdges.insert(v, owner: slot) }
        cells.insert(b, slot)
        revision += 1
    }

    private mutating func removeEdges(_ b: Rect, _ slot: Int32) {
        for v in [b.minX, b.midX, b.maxX] { xEdges.remove(v, owner: slot) }
        for v in [b.minY, b.midY, b.maxY] { yEdges.remove(v, owner: slot) }
        cells.remove(b, slot)
        revision += 1
    }
}
