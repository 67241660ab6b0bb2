/// libwebsockets could not do what was asked.
public struct LWSError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
