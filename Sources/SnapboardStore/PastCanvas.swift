import SnapboardCore

/// A canvas as it was at a past seq, as far as its checkpoint and log reach back.
public enum PastCanvas: Sendable {
    case canvas(Canvas)
    /// The canvas has not reached that seq: `last` is its newest.
    case notYet(last: Int)
    /// That seq is older than the oldest state kept: `oldest` is the earliest seq that can be rebuilt.
    case gone(oldest: Int)
}
