import Glibc

/// One client connection of a `RawWebSocketLoop`. Only the loop's thread touches it.
public final class RawWebSocketConnection {
    enum State {
        /// The TCP connect is under way; the upgrade follows.
        case connecting(UpgradeHandshake)
        /// Connected, the upgrade request sent, its answer awaited.
        case upgrading(UpgradeHandshake)
        case open
        /// Our close frame is queued or sent; the peer's is awaited.
        case closing
        case closed
    }

    /// Whatever the owner wants to find again from a callback (an index into its own tables).
    public let tag: Int
    /// Whether the upgrade completed and the connection has not begun closing since.
    public var isOpen: Bool { if case .open = state { true } else { false } }

    var state: State
    var fd: Int32 = -1
    /// The loop's table slot, and the generation that tells this connection from the slot's later ones.
    let slot: Int
    let generation: UInt32
    var reader: ServerFrameReader
    /// Bytes read and not yet consumed are `input[inputStart..<inputEnd]`; a frame larger than the buffer
    /// grows it to the frame's size, so that a message that arrives whole is always lent in one piece.
    var input: UnsafeMutableRawBufferPointer
    var inputStart = 0, inputEnd = 0
    /// Frames not yet written are `outbox[outboxStart...]`.
    var outbox: [UInt8] = []
    var outboxStart = 0
    /// Whether epoll watches for writability: only while the outbox holds bytes, or the connect is under way.
    var watchesWritable = false
    /// Once the outbox is written, the socket is closed (after our close frame, or after answering the peer's).
    var closeWhenWritten = false
    var peerClose: (code: UInt16?, reason: String)?
    /// Why the connection ended, for `failed` when it never opened.
    var failure: String?
    var wasOpened = false

    init(tag: Int, slot: Int, generation: UInt32, handshake: UpgradeHandshake, maxMessageBytes: Int, bufferBytes: Int) {
        self.tag = tag
        state = .connecting(handshake)
        self.slot = slot
        self.generation = generation
        reader = ServerFrameReader(maxMessageBytes: maxMessageBytes)
        input = .allocate(byteCount: bufferBytes, alignment: 16)
    }

    deinit {
        input.deallocate()
        if fd >= 0 { Glibc.close(fd) }
    }

    var hasOutput: Bool { outboxStart < outbox.count }

    /// Makes room for a frame of `needed` bytes from `inputStart`: moves the unread bytes to the front, and
    /// grows the buffer when that is not enough.
    func makeRoom(for needed: Int) {
        let unread = inputEnd - inputStart
        if needed > input.count {
            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: max(needed, 2 * input.count), alignment: 16)
            bigger.baseAddress!.copyMemory(from: input.baseAddress! + inputStart, byteCount: unread)
            input.deallocate()
            input = bigger
        } else if inputStart > 0 {
            input.baseAddress!.copyMemory(from: input.baseAddress! + inputStart, byteCount: unread)
        }
        inputStart = 0
        inputEnd = unread
    }
}
