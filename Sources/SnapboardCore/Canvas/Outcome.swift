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
    public var commit: CommittedOp? {
        get { committed?.op }
        set { committed = newValue.map(Committed.init) }
    }
    /// `commit`, behind one reference: a drag's every step makes and drops several outcomes that commit
    /// nothing, and an optional reference is dropped with one release, where the enum inline is dropped
    /// through its value witnesses, case by case.
    private var committed: Committed?
    /// True when an operation that would commit (a gesture's end, a one-shot gesture), or a gesture the
    /// server ended (a lease that expired, a disconnect), changed nothing: its parameters were the identity,
    /// or the shape ended where it was committed. Nothing commits; `changed` holds the shape back in its
    /// committed state (z included), for a live delta, and `seq` is the canvas's current one. An `order` or
    /// `lock` that would change nothing (1.6) is `unchanged` too, with `changed` empty: nothing to show.
    public var unchanged = false
    /// The canvas's sequence number after the operation: the committed op's number when it committed.
    public var seq: Int = 0

    public init() {}

    private final class Committed: Hashable, Sendable {
        let op: CommittedOp

        init(_ op: CommittedOp) { self.op = op }

        static func == (a: Committed, b: Committed) -> Bool { a.op == b.op }
        func hash(into hasher: inout Hasher) { hasher.combine(op) }
    }
}
