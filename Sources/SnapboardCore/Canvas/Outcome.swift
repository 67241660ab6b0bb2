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
