/// A client's intent. Gesture parameters are cumulative since the gesture's begin, so an update is
/// idempotent and a burst of updates can be coalesced into the last one.
///
/// The two cases with a whole shape's spec are `indirect`: the op is then as small as a gesture's, and
/// a drag's every step, which passes its op along by value, copies that much and no more.
public enum CanvasOp: Hashable, Sendable {
    /// A tap at `at`: a new shape appears at the nearest grid intersection (or fills the layout cell).
    indirect case snap(at: Point, shapeID: ShapeID?, spec: ShapeSpec)
    /// A drag by `translation`, in canvas space, since the gesture began. With `snap` false the shape moves
    /// by exactly `translation`: no grid, edge or gap snapping, no guides or haptics (still kept on a bounded
    /// canvas). False on a begin or a one-shot holds for the whole gesture; false on an update or an end turns
    /// snapping off from then on.
    case move(ShapeID, phase: GesturePhase?, translation: Point, snap: Bool = true)
    /// A pinch by `factor` since the gesture began, about `anchor` (the pinch centre; the shape's centre when
    /// nil), turning by `radians` about the same point: two fingers scale and rotate at once, and the point
    /// between them stays under them.
    case scale(ShapeID, phase: GesturePhase?, factor: Double, anchor: Point?, radians: Double = 0)
    /// A twist by `radians` since the gesture began, about the shape's centre.
    case rotate(ShapeID, phase: GesturePhase?, radians: Double)
    /// Removes every shape and cancels every gesture.
    case clear
    /// Removes these shapes: all or none, and none under another session's gesture.
    case delete([ShapeID])
    /// Reverts the sender's most recent change that still has something to revert. The canvas keeps
    /// no history: the room, which knows who sent what, resolves it into an effect.
    case undo
    /// Re-applies what the sender's last undo reverted.
    case redo
    /// Restacks these shapes (1.6): to the front, to the back, or one overlapping shape forward or backward
    /// (`StackMove`). All or none; none under a gesture.
    case order([ShapeID], to: StackMove)
    /// Locks (or unlocks) these shapes (1.6): a locked shape refuses moves, scales, rotations and deletes.
    /// All or none; none under a gesture.
    case lock([ShapeID], locked: Bool)
    /// Restyles these shapes (1.7, P26): all or none, none locked or under a gesture or a text edit.
    case style([ShapeID], StylePatch)
    /// Sets a shape's text (1.7, P26). A `begin` leases the shape for editing without moving it; an `update`
    /// holds the draft and keeps the lease; an `end` or a one-shot commits `text` (nil: the draft).
    case text(ShapeID, phase: GesturePhase?, text: String?)
    /// Copies these shapes (1.7, P27) one grid step right and down, on top, with new ids (`ids`, else the
    /// server's), their looks, and a new group for each group copied. All or none.
    case duplicate([ShapeID], ids: [ShapeID]?)
    /// Puts these shapes and the other members of their groups in one new group (1.7, P27).
    case group([ShapeID])
    /// Dissolves the groups these shapes are in (1.7, P27).
    case ungroup([ShapeID])
    /// Draws a connector (1.7, P28): a `line` or `arrow` (`spec.kind`) from one end to the other, each a
    /// point, which binds to a shape's anchor it lies near or a shape it lies on, or an anchor named outright.
    indirect case connect(shapeID: ShapeID?, spec: ShapeSpec, from: EndSpec, to: EndSpec)
    /// Drags end `end` of connector `id` by `translation` since the gesture began (1.7, P28): it binds to an
    /// anchor it comes near, or a shape it lies on, and is free elsewhere.
    case endpoint(ShapeID, end: ConnectorEnd, phase: GesturePhase?, translation: Point)
    /// A drag of 2–1,000 shapes as one (1.7, P29): every lease at once, snapping on their bounds together.
    case moveMany([ShapeID], phase: GesturePhase?, translation: Point, snap: Bool = true)
    /// A pinch of 2–1,000 shapes as one (1.7, P29), about `anchor` (the centre of their bounds when nil).
    case scaleMany([ShapeID], phase: GesturePhase?, factor: Double, anchor: Point?, radians: Double = 0)
    /// A twist of 2–1,000 shapes as one (1.7, P29), about the centre of their bounds.
    case rotateMany([ShapeID], phase: GesturePhase?, radians: Double)

    /// The shape a gesture operation targets.
    public var shapeID: ShapeID? {
        switch self {
        case .move(let id, _, _, _), .scale(let id, _, _, _, _), .rotate(let id, _, _), .text(let id, _, _), .endpoint(let id, _, _, _): id
        case .snap, .clear, .delete, .undo, .redo, .order, .lock, .style, .duplicate, .group, .ungroup, .connect,
             .moveMany, .scaleMany, .rotateMany: nil
        }
    }

    /// Each shape a gesture leases: its shape, or a selection gesture's shapes (1.7, P29); none for other
    /// ops. No array is built for a single shape, as every drag update would.
    public func forEachGestureShape(_ body: (ShapeID) -> Void) {
        switch self {
        case .moveMany(let ids, _, _, _), .scaleMany(let ids, _, _, _, _), .rotateMany(let ids, _, _): ids.forEach(body)
        default: if let id = shapeID { body(id) }
        }
    }

    /// The first shape a gesture leases, where a selection gesture keeps its guides; nil when there is none.
    public var leadGestureShape: ShapeID? {
        switch self {
        case .moveMany(let ids, _, _, _), .scaleMany(let ids, _, _, _, _), .rotateMany(let ids, _, _): ids.first
        default: shapeID
        }
    }

    /// How many shapes the op names: a selection gesture's shapes, or the list of a delete, an order, a lock,
    /// a style, a duplicate, a group or an ungroup; 1 for every other op. What the op costs the room grows
    /// with it, so rate limits count it (P10).
    public var shapesNamed: Int {
        switch self {
        case .moveMany(let ids, _, _, _), .scaleMany(let ids, _, _, _, _), .rotateMany(let ids, _, _), .delete(let ids),
             .order(let ids, _), .lock(let ids, _), .style(let ids, _), .duplicate(let ids, _), .group(let ids), .ungroup(let ids):
            max(1, ids.count)
        case .snap, .move, .scale, .rotate, .clear, .undo, .redo, .text, .connect, .endpoint: 1
        }
    }

    /// The gesture phase, or nil for one-shots, snaps and clears.
    public var phase: GesturePhase? {
        switch self {
        case .move(_, let p, _, _), .scale(_, let p, _, _, _), .rotate(_, let p, _), .text(_, let p, _), .endpoint(_, _, let p, _),
             .moveMany(_, let p, _, _), .scaleMany(_, let p, _, _, _), .rotateMany(_, let p, _): p
        case .snap, .clear, .delete, .undo, .redo, .order, .lock, .style, .duplicate, .group, .ungroup, .connect: nil
        }
    }

    /// True when applying the operation successfully commits it: it takes a sequence number and an ack.
    public var commits: Bool {
        switch phase {
        case nil, .end?: true
        case .begin?, .update?: false
        }
    }
}

/// Where a `connect` puts one end (1.7, P28).
public enum EndSpec: Hashable, Sendable {
    /// A point on the canvas: the server binds it to an anchor it lies near, or to a shape it lies on.
    case at(Point)
    /// Bound to this anchor of this shape, as given.
    case bound(Binding)
}
