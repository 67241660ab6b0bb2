/// A key or secret the server cannot use.
public struct TokenConfigError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
