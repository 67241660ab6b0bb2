/// A gesture in progress on one shape: who holds it, what the shape was at its begin, and the snaps it holds.
struct Gesture: Sendable {
    enum Kind: Hashable, Sendable {
        case move
        case scale
        case rotate
        /// A text edit (1.7): it leases the shape without moving or restacking it.
        case text
        /// A drag of one end of a connector (1.7, P28).
        case endpoint(ConnectorEnd)
    }

    var owner: String
    var kind: Kind
    /// The shape's slot in the store, fixed while the gesture lasts.
    var slot: Int32
    /// `committed` and `origin`, which a gesture's steps read but do not change, kept in one immutable box:
    /// every step copies its gesture out of the table and back, and a copy then costs a reference, not two
    /// shapes with all their strings.
    private var shapes: Shapes
    /// The shape as last committed, before this gesture (and any it re-based) began.
    var committed: Shape {
        get { shapes.committed }
        set { shapes = Shapes(committed: newValue, origin: shapes.origin) }
    }
    /// The shape when the gesture began; cumulative parameters apply to this.
    var origin: Shape {
        get { shapes.origin }
        set { shapes = Shapes(committed: shapes.committed, origin: newValue) }
    }
    var originBounds: Rect
    var zoom: Double
    /// False once the gesture asked for an exact move (`snap: false`): no snapping, guides or haptics.
    var snaps = true
    var xLock: AxisLock?
    var yLock: AxisLock?
    /// The angle a rotation is snapped to, while it is.
    var angleLock: Double?
    /// A text edit's draft: what its end commits when it gives no text, as a lapse or a disconnect does.
    var draft: String?
    /// The binding a dragged connector end holds, while it holds one (1.7, P28).
    var binding: Binding?
    /// The selection gesture this shape's lease belongs to (1.7, P29): its key in `Canvas.selections`.
    var selection: Int?

    init(owner: String, kind: Kind, slot: Int32, committed: Shape, origin: Shape, originBounds: Rect, zoom: Double, snaps: Bool) {
        self.owner = owner
        self.kind = kind
        self.slot = slot
        shapes = Shapes(committed: committed, origin: origin)
        self.originBounds = originBounds
        self.zoom = zoom
        self.snaps = snaps
    }

    private final class Shapes: Sendable {
        let committed: Shape
        let origin: Shape

        init(committed: Shape, origin: Shape) {
            self.committed = committed
            self.origin = origin
        }
    }
}

extension CanvasOp {
    var gestureKind: Gesture.Kind? {
        switch self {
        case .move: .move
        case .scale: .scale
        case .rotate: .rotate
        case .text: .text
        case .endpoint(_, let end, _, _): .endpoint(end)
        case .moveMany: .move
        case .scaleMany: .scale
        case .rotateMany: .rotate
        case .snap, .clear, .delete, .undo, .redo, .order, .lock, .style, .duplicate, .group, .ungroup, .connect: nil
        }
    }
}

/// A gesture on a selection of shapes (1.7, P29): the shapes it leases, and a stand-in gesture for the
/// selection as a whole, its frame the union of their bounds when it began, which snaps and holds the locks.
struct SelectionGesture: Sendable {
    var owner: String
    var kind: Gesture.Kind
    /// The shapes leased, in the order first named.
    var members: [ShapeID]
    /// The selection as one shape: its origin's centre and bounds are the union's when the gesture began.
    var whole: Gesture
}
