/// Which `Origin` and `Host` headers a server answers, against cross-site WebSocket hijacking (a page on
/// another site opening a socket to the server in its visitor's browser) and DNS rebinding (another site's
/// name made to resolve to the server's address).
///
/// A pattern is a host (`board.example.com`), a wildcard for its subdomains (`*.example.com`, which does
/// not match `example.com` itself), or `*` for any. An allowed origin may also be a whole origin
/// (`https://board.example.com:8443`), compared exactly.
public struct OriginPolicy: Sendable {
    /// Extra origins allowed besides the server's own; empty allows only requests without an `Origin`
    /// (not from a browser) and those from the page the server serves itself.
    public var allowedOrigins: [String]
    /// Hosts the server answers to; empty answers any.
    public var allowedHosts: [String]

    public init(allowedOrigins: [String] = [], allowedHosts: [String] = []) {
        self.allowedOrigins = allowedOrigins.map { $0.lowercased() }
        self.allowedHosts = allowedHosts.map { $0.lowercased() }
    }

    /// The names a server bound to loopback answers to by default: a page on another site cannot reach it
    /// through a name of its own.
    public static let loopbackHosts = ["localhost", "127.0.0.1", "::1", "*.localhost"]

    /// True for the addresses only this machine can reach.
    public static func isLoopback(_ address: String) -> Bool {
        address == "localhost" || address == "::1" || address.hasPrefix("127.")
    }

    /// True when a request with this `Host` header may be answered.
    public func allowsHost(_ host: String?) -> Bool {
        guard !allowedHosts.isEmpty else { return true }
        guard let host, let name = Self.hostName(host) else { return false }
        return allowedHosts.contains { Self.matches(name, pattern: $0) }
    }

    /// True when a request with this `Origin` header, to a server reached as `host`, may be answered.
    public func allowsOrigin(_ origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        let lowered = origin.lowercased()
        // The server's own page: the origin's authority is the Host the browser sent.
        if let host, let authority = Self.authority(ofOrigin: lowered), authority == host.lowercased() { return true }
        guard let name = Self.authority(ofOrigin: lowered).flatMap(Self.hostName) else { return false }
        return allowedOrigins.contains { pattern in
            pattern.contains("://") ? pattern == lowered : Self.matches(name, pattern: pattern)
        }
    }

    static func matches(_ name: String, pattern: String) -> Bool {
        if pattern == "*" { return true }
        if pattern.hasPrefix("*.") { return name.hasSuffix(pattern.dropFirst()) && name.count > pattern.count - 1 }
        return name == pattern
    }

    /// `host:port` of `scheme://host:port`; nil for `null` and anything that is not an origin.
    static func authority(ofOrigin origin: String) -> String? {
        guard let range = origin.range(of: "://") else { return nil }
        let authority = origin[range.upperBound...]
        guard !authority.isEmpty, !authority.contains("/") else { return nil }
        return String(authority)
    }

    /// The name of a `host[:port]` or `[v6]:port`, lower-cased.
    static func hostName(_ authority: String) -> String? {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("[") {
            guard let close = lowered.firstIndex(of: "]") else { return nil }
            return String(lowered[lowered.index(after: lowered.startIndex)..<close])
        }
        let name = lowered.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }
}
