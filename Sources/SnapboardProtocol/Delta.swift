import SnapboardCore

/// One broadcast of what changed on a canvas.
public struct Delta: Hashable, Sendable {
    /// The canvas seq after the change: the committed op's number, or the current seq for a live delta.
    public var seq: Int
    /// The session that caused the change; for a coalesced live delta, the last one that did.
    public var by: Int
    /// Every op id the delta covers.
    public var ops: [String]
    public var shapes: [Shape]
    public var removed: [ShapeID] = []
    public var cleared = false
    public var guides: [Guide] = []
    /// Equal spacing shown while gap snaps hold.
    public var gaps: [GapGuide] = []
    /// True for in-gesture updates, which do not advance seq.
    public var live: Bool

    public init(seq: Int, by: Int, ops: [String], shapes: [Shape], removed: [ShapeID] = [], cleared: Bool = false,
                guides: [Guide] = [], gaps: [GapGuide] = [], live: Bool) {
        (self.seq, self.by, self.ops, self.shapes, self.removed, self.cleared, self.guides, self.gaps, self.live) =
            (seq, by, ops, shapes, removed, cleared, guides, gaps, live)
    }
}
