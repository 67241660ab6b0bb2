/// A committed operation as the op log keeps it: the resolved effect, not the client's intent.
///
/// Gestures depend on their path (a snap held by the grip is not found again from the end point alone),
/// and future versions may resolve taps differently, so replay never re-resolves: it reapplies effects.
///
/// The cases that carry whole shapes are `indirect`: a shape is about 280 bytes, and without the box every
/// op (and every record of a log a million long) would take the size of a reconnect's two. So is `place`,
/// with its two placements: an op is then a few words, and so is every outcome of a drag's step, which
/// holds an optional one and is passed along by value.
public enum CommittedOp: Hashable, Sendable {
    /// A shape was created; `rng` is the canvas generator's state after drawing its colour.
    indirect case create(Shape, rng: UInt64)
    /// A gesture ended (or an undo moved a shape back): the shape's final placement, and the one it had
    /// before, which undo goes back to (nil in logs written before 1.1: not undoable).
    indirect case place(Placement, before: Placement?)
    /// Every shape was removed; `removed` holds them as they were, for undo (empty in logs before 1.1).
    case clear(removed: [Shape])
    /// These shapes were removed (a delete, or an undone creation), as they were.
    case remove([Shape])
    /// These shapes came back whole, with their ids and z (an undone delete or clear, a redone creation).
    case restore([Shape])
    /// These shapes changed their z and nothing else (an `order`, 1.6), each with the z it had before.
    case order([ZMove])
    /// These shapes were locked (or unlocked, `locked` false), 1.6: only those whose flag changed.
    case lock([ShapeID], locked: Bool)
    /// These shapes' looks changed (a `style` or `text` op, 1.7), each with the look it had before.
    case edit([LookChange])
    /// A connector's end was dragged (1.7, P28): the connector whole after, and before.
    indirect case reconnect(Shape, before: Shape)
    /// A selection gesture ended (1.7, P29), or an undo moved shapes back: each shape's placement, and the
    /// one it had before, in the same order.
    case arrange([Placement], before: [Placement])

    /// The ids of the shapes the effect touches.
    public var shapeIDs: [ShapeID] {
        switch self {
        case .create(let shape, _): [shape.id]
        case .place(let p, _): [p.id]
        case .clear(let shapes), .remove(let shapes), .restore(let shapes): shapes.map(\.id)
        case .order(let moves): moves.map(\.id)
        case .lock(let ids, _): ids
        case .edit(let changes): changes.map(\.id)
        case .reconnect(let shape, _): [shape.id]
        case .arrange(let placements, _): placements.map(\.id)
        }
    }
}
