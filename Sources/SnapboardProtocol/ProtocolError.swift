/// Why a message is not a valid client message. Answered with an `error` message; the connection stays
/// open unless the client keeps misbehaving.
public struct ProtocolError: Error, Hashable, Sendable {
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The frame is not JSON.
        case badJSON = "bad_json"
        /// JSON, but not a message of the protocol: a missing or mistyped field.
        case badMessage = "bad_message"
        /// An object whose `type` the server does not know.
        case unknownType = "unknown_type"
        /// An `op` whose `op` kind the server does not know.
        case unknownOp = "unknown_op"
        /// The message is larger than the server's limit (the connection is then closed with 1009).
        case tooLarge = "too_large"
        /// A binary frame: the protocol is JSON in text frames.
        case binaryFrame = "binary_frame"
        /// More cursor messages per second than the server relays; the extra ones are dropped (P20).
        case rateLimited = "rate_limited"
    }

    public var code: Code
    public var message: String
    /// The op id, when the message got far enough to have one.
    public var id: String?

    public init(_ code: Code, _ message: String, id: String? = nil) {
        self.code = code
        self.message = message
        self.id = id
    }
}
