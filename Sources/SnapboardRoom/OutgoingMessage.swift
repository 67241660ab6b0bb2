import SnapboardProtocol

/// One message to send: a frame, or a big message in parts that share memory with other recipients'
/// copies (a welcome: its own head, the canvas's serialised shapes, its own tail). The transport sends
/// parts as the fragments of one WebSocket message.
public enum OutgoingMessage {
    case whole(Frame)
    case parts([Frame])

    /// The message's bytes, joined (for tests and checks; the transport writes the parts as they are).
    public var bytes: [UInt8] {
        switch self {
        case .whole(let frame): frame.bytes
        case .parts(let parts): parts.flatMap(\.bytes)
        }
    }

    /// The frame of a whole message; nil for one in parts.
    public var frame: Frame? { if case .whole(let frame) = self { frame } else { nil } }
}
