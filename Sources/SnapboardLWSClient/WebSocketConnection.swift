import DequeModule
import SnapboardLWS

/// One client connection of a `WebSocketLoop`. Only the loop's service thread touches it.
public final class WebSocketConnection {
    /// Whatever the owner wants to find again from a callback (an index into its own tables).
    public let tag: Int
    var socket: LWSSocket?
    var outgoing = Deque<Outgoing>()
    /// The frame being written in fragments, and how many of them are out.
    var writing: (frame: Outgoing, sent: Int)?
    var closeRequested: (code: UInt16, reason: String)?
    var assembler: FrameAssembler
    var peerClose: (code: UInt16, reason: String)?

    /// Whether the upgrade completed and the connection has not closed since.
    public var isOpen: Bool { socket != nil }

    init(tag: Int, maxMessageBytes: Int) {
        self.tag = tag
        assembler = FrameAssembler(limit: maxMessageBytes)
    }

    var hasWork: Bool { writing != nil || !outgoing.isEmpty || closeRequested != nil }
}
