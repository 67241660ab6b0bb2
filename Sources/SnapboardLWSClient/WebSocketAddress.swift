/// The parts of a `ws://host:port/path?query` or `wss://…` URL.
public struct WebSocketAddress: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// The path with its query, `/` when the URL has none.
    public var path: String
    /// `wss://`: over TLS.
    public var secure: Bool

    public init(url: String) throws {
        secure = url.hasPrefix("wss://")
        guard secure || url.hasPrefix("ws://") else { throw WebSocketError("only ws:// and wss:// URLs are supported: \(url)") }
        let rest = url.dropFirst(secure ? 6 : 5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
        if let colon = authority.lastIndex(of: ":"), let p = Int(authority[authority.index(after: colon)...]) {
            host = String(authority[..<colon])
            port = p
        } else {
            host = String(authority)
            port = secure ? 443 : 80
        }
    }
}
