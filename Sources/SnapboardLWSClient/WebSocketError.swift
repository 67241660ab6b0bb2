/// A client error, with what went wrong.
public struct WebSocketError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
