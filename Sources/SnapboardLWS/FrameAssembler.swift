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

    /// Adds one fragment. Returns the message when `last` completes it, `.tooLarge` the moment it passes
    /// the limit, and nil otherwise (including the later fragments of a message being skipped).
    public mutating func append(_ fragment: UnsafeRawBufferPointer, first: Bool, last: Bool, binary isBinary: Bool) -> Assembled? {
        if first {
            bytes.removeAll(keepingCapacity: true)
            discarding = false
            binary = isBinary
        }
        if discarding { return nil }
        if bytes.count + fragment.count > limit {
            discarding = true
            bytes.removeAll()
            return .tooLarge
        }
        bytes.append(contentsOf: fragment)
        guard last else { return nil }
        defer { bytes.removeAll(keepingCapacity: true) }
        return .message(bytes, binary: binary)
    }
}
