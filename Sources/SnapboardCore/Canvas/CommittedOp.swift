/// A committed operation as the op log keeps it: the resolved effect, not the client's intent.
///
/// Gestures depend on their path (a snap held by the grip is not found again from the end point alone),
/// and future versions may resolve taps differently, so replay never re-resolves: it reapplies effects.
public enum CommittedOp: Hashable, Sendable {
    /// A shape was created; `rng` is the canvas generator's state after drawing its colour.
    case create(Shape, rng: UInt64)
    /// A gesture ended (or an undo moved a shape back): the shape's final placement, and the one it had
    /// before, which undo goes back to (nil in logs written before 1.1: not undoable).
    case place(Placement, before: Placement?)
    /// Every shape was removed; `removed` holds them as they were, for undo (empty in logs before 1.1).
    case clear(removed: [Shape])
    /// These shapes were removed (a delete, or an undone creation), as they were.
    case remove([Shape])
    /// These shapes came back whole, with their ids and z (an undone delete or clear, a redone creation).
    case restore([Shape])

    /// The ids of the shapes the effect touches.
    public var shapeIDs: [ShapeID] {
        switch self {
        case .create(let shape, _): [shape.id]
        case .place(let p, _): [p.id]
        case .clear(let shapes), .remove(let shapes), .restore(let shapes): shapes.map(\.id)
        }
    }
}

/// Where a gesture left a shape.
public struct Placement: Hashable, Sendable, Codable {
    public var id: ShapeID
    public var center: Point
    public var size: Size
    public var scale: Double
    public var rotation: Double
    public var z: Int

    public init(of shape: Shape) {
        id = shape.id
        center = shape.center
        size = shape.size
        scale = shape.scale
        rotation = shape.rotation
        z = shape.z
    }

    /// `shape` moved to this placement.
    public func applied(to shape: Shape) -> Shape {
        var s = shape
        s.center = center
        s.size = size
        s.scale = scale
        s.rotation = rotation
        s.z = z
        return s
    }
}

/// What applying an operation did.
public struct Outcome: Hashable, Sendable {
    /// Shapes that were created or changed, in their new state.
    public var changed: [Shape] = []
    /// Ids of shapes that were removed (not by a clear).
    public var removed: [ShapeID] = []
    /// True when the operation removed everything.
    public var cleared = false
    /// Guides for everyone and haptics for the participant. An empty list on a gesture's end clears the guides.
    public var events: [CanvasEvent] = []
    /// The effect to log, when the operation committed.
    public var commit: CommittedOp?
    /// The canvas's sequence number after the operation: the committed op's number when it committed.
    public var seq: Int = 0

    public init() {}
}
