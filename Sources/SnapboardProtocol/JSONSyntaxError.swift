/// Why some bytes are not JSON.
public struct JSONSyntaxError: Error, Hashable, Sendable {
    public var offset: Int
    public var reason: String
}
