import SnapboardAuth

/// An HTTP request accepted for routing; a POST or PUT waits in `SocketState.receiving` for its body.
struct APIRequest {
    var method: String
    var endpoint: APIEndpoint
    var path: String
    var arguments: [String]
    var ifNoneMatch: String?
    var body: [UInt8] = []
    /// Who the request was let through as, for the answers that depend on it (the listing, minting).
    var grant = Grant.anyone

    /// Who a request was let through as.
    enum Grant {
        /// No credential was needed (an open server, or an endpoint that checks its own).
        case anyone
        /// The admin token.
        case admin
        /// An access token, with its claims.
        case token(AccessClaims)
    }

    /// The decoded value of query parameter `name`, if given.
    func argument(_ name: String) -> String? {
        arguments.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    /// Whether the method changes canvases: those need the admin token once one is configured.
    var changesCanvases: Bool { method != "GET" }
}
