/// Reads a server's WebSocket frames (RFC 6455) from bytes as they arrive, a whole frame at a time.
///
/// Pure: it owns no socket and no buffer of its own except the joined payload of a fragmented message. The
/// caller keeps the bytes read so far and calls `next` while it yields frames. Every length from the peer
/// is checked before anything is buffered for it: a frame or a joined message over `maxMessageBytes`
/// ends the connection with 1009. Text is not checked for valid UTF-8.
public struct ServerFrameReader {
    /// What a frame means to the connection.
    public enum Event {
        /// A whole message in one frame, lent: it points into the bytes given to `next`.
        case message(UnsafeRawBufferPointer, binary: Bool)
        /// The final fragment of a fragmented message arrived: every fragment's payload, joined.
        case joined([UInt8], binary: Bool)
        /// A ping, its payload lent, to be answered with a pong carrying the same payload.
        case ping(UnsafeRawBufferPointer)
        /// A pong, which the reader only reports.
        case pong
        /// The peer's close frame: its code and reason when it gave them.
        case close(code: UInt16?, reason: String)
    }

    /// The result of one call to `next`.
    public enum Step {
        /// A frame of `consumed` bytes; `event` is nil for a fragment that is not the message's last.
        case frame(Event?, consumed: Int)
        /// The bytes hold less than a frame, which needs `needed` bytes in all (its header's, while the
        /// header itself is incomplete).
        case incomplete(needed: Int)
        /// The peer broke the protocol or sent too much: close with `code`, giving `reason`.
        case violation(code: UInt16, reason: String)
    }

    /// The largest message, in one frame or joined, that the reader accepts.
    public let maxMessageBytes: Int
    /// The fragments of the message being joined, and its type; nil between messages.
    private var joining: (payload: [UInt8], binary: Bool)?

    /// A reader that refuses messages over `maxMessageBytes`, in one frame or joined.
    public init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Whether a fragmented message has begun and not ended.
    public var isJoining: Bool { joining != nil }

    /// Reads the frame at the start of `bytes`.
    public mutating func next(_ bytes: UnsafeRawBufferPointer) -> Step {
        guard bytes.count >= 2 else { return .incomplete(needed: 2) }
        let b0 = bytes[0], b1 = bytes[1]
        let fin = b0 & 0x80 != 0, opcode = b0 & 0x0F
        guard b0 & 0x70 == 0 else { return .violation(code: 1002, reason: "reserved bits set with no extension agreed") }
        guard b1 & 0x80 == 0 else { return .violation(code: 1002, reason: "a server's frame is masked") }
        var header = 2
        var length = UInt64(b1 & 0x7F)
        if length == 126 {
            header = 4
            guard bytes.count >= header else { return .incomplete(needed: header) }
            length = UInt64(bytes[2]) << 8 | UInt64(bytes[3])
        } else if length == 127 {
            header = 10
            guard bytes.count >= header else { return .incomplete(needed: header) }
            length = (2..<10).reduce(0) { $0 << 8 | UInt64(bytes[$1]) }
            guard length >> 63 == 0 else { return .violation(code: 1002, reason: "a 64-bit length with its top bit set") }
        }
        let control = opcode & 0x08 != 0
        if control {
            guard length <= 125 else { return .violation(code: 1002, reason: "a control frame of \(length) bytes (at most 125)") }
            guard fin else { return .violation(code: 1002, reason: "a fragmented control frame") }
        } else {
            let held = UInt64(joining?.payload.count ?? 0)
            guard opcode != 0 || joining != nil else { return .violation(code: 1002, reason: "a continuation frame with no message begun") }
            guard opcode == 0 || joining == nil else { return .violation(code: 1002, reason: "a new message before the last one's final fragment") }
            guard length <= UInt64(maxMessageBytes) - (opcode == 0 ? held : 0) else {
                return .violation(code: 1009, reason: "a message of over \(maxMessageBytes) bytes (a frame of \(length))")
            }
        }
        let total = header + Int(length)
        guard bytes.count >= total else { return .incomplete(needed: total) }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[header..<total])
        switch opcode {
        case 0x0:
            joining!.payload.append(contentsOf: payload)
            guard fin, let whole = joining else { return .frame(nil, consumed: total) }
            joining = nil
            return .frame(.joined(whole.payload, binary: whole.binary), consumed: total)
        case 0x1, 0x2:
            if fin { return .frame(.message(payload, binary: opcode == 0x2), consumed: total) }
            joining = (Array(payload), opcode == 0x2)
            return .frame(nil, consumed: total)
        case 0x8:
            if payload.isEmpty { return .frame(.close(code: nil, reason: ""), consumed: total) }
            guard payload.count >= 2 else { return .violation(code: 1002, reason: "a close frame of one byte") }
            let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
            let reason = String(decoding: UnsafeRawBufferPointer(rebasing: payload[2...]), as: UTF8.self)
            return .frame(.close(code: code, reason: reason), consumed: total)
        case 0x9:
            return .frame(.ping(payload), consumed: total)
        case 0xA:
            return .frame(.pong, consumed: total)
        default:
            return .violation(code: 1002, reason: "opcode \(opcode), which RFC 6455 reserves")
        }
    }
}
