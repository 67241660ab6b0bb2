import SnapboardProtocol

/// A message to write, in a frame it owns, and how many WebSocket fragments to split it into.
struct Outgoing {
    var frame: Frame
    var binary: Bool
    var fragments: Int
}
