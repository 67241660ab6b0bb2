/// Joins the fragments of one WebSocket message, up to a size cap. Pure: the transport feeds it what
/// each receive callback brings, with libwebsockets' first- and final-fragment flags.
public struct FrameAssembler {
    /// What a fragment completed.
    public enum Assembled: Equatable {
        /// A whole message.
        case message([UInt8], binary: Bool)
        /// The message passed `limit` bytes: reported once, and the rest of it is skipped.
        case tooLarge
    }

    /// The largest message, in bytes.
    public let limit: Int
    private var bytes: [UInt8] = []
    private var binary = false
    private var discarding = false

    public init(limit: Int) { self.limit = limit }

    /// The bytes held of a message not yet complete: what a connection costs while it leaves one unfinished.
    public var heldBytes: Int { bytes.count }

    /// True while the rest of a message is being skipped (past the cap, or `discard()`ed).
    public var isSkipping: Bool { discarding }

    /// Adds one fragment. Returns the message when `last` completes it, `.tooLarge` the moment it passes
    /// the limit, and nil otherwise (including the later fragments of a message being skipped).
    public mutating func append(_ fragment: UnsafeRawBufferPointer, first: Bool, last: Bool, binary isBinary: Bool) -> Assembled? {
        if first {
            bytes = []
            discarding = false
            binary = isBinary
        }
        if discarding { return nil }
        if bytes.count + fragment.count > limit {
            discard()
            return .tooLarge
        }
        // A message in one piece (most are) is copied once, and nothing stays held.
        if first, last { return .message(Array(fragment), binary: binary) }
        bytes.append(contentsOf: fragment)
        guard last else { return nil }
        // The message takes the buffer with it: nothing as large as the largest message stays held.
        defer { bytes = [] }
        return .message(bytes, binary: binary)
    }

    /// Drops the message in progress, and skips the rest of it: its memory goes at once.
    public mutating func discard() {
        discarding = true
        bytes = []
    }
}
