/// An op id the load tool can trace back to its send: `"<client>.<counter>"`, the sending client's
/// index on its canvas and that client's op counter. Deltas list op ids (P8), so a receiver finds out who
/// sent each op it sees, and when, without any shared state.
public struct OpTag: Hashable, Sendable {
    public var client: Int
    public var counter: Int

    public init(client: Int, counter: Int) {
        self.client = client
        self.counter = counter
    }

    /// The id as sent.
    public var text: String { "\(client).\(counter)" }

    /// Parses an id; nil for an id the load tool did not send (any other form).
    public init?(_ id: some StringProtocol) { self.init(utf8: id.utf8) }

    /// Parses an id from its UTF-8 bytes.
    public init?(utf8 id: some Sequence<UInt8>) {
        var client = 0, counter = 0, digits = 0, seenDot = false
        for byte in id {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard digits < 12 else { return nil }
                let d = Int(byte - UInt8(ascii: "0"))
                if seenDot { counter = counter * 10 + d } else { client = client * 10 + d }
                digits += 1
            case UInt8(ascii: ".") where !seenDot && digits > 0:
                seenDot = true
                digits = 0
            default:
                return nil
            }
        }
        guard seenDot, digits > 0 else { return nil }
        self.init(client: client, counter: counter)
    }
}
