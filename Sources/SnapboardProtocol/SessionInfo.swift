import SnapboardCore

/// A session as others see it.
public struct SessionInfo: Hashable, Sendable {
    public var session: Int
    public var name: String
    public var client: String?
    /// Who the session is, from its access token's `sub`, on a server that requires tokens.
    public var user: String?

    public init(session: Int, name: String, client: String?, user: String? = nil) {
        (self.session, self.name, self.client, self.user) = (session, name, client, user)
    }

    /// The colour others draw this session in (its cursor, its leases), as `#rrggbb`: a hue from a hash of
    /// the user, else the client id, so a person keeps their colour across reconnects, or of the session
    /// when it gave neither.
    /// Saturation and brightness are fixed, so every colour reads on white.
    public var color: String {
        let hash = SeededGenerator.fnv1a((user.map { "u:" + $0 } ?? client.map { "c:" + $0 } ?? "s:\(session)").utf8)
        let rgb = HSBColor(h: Double(hash % 360) / 360, s: 0.75, b: 0.8, a: 1).rgb
        let hex = String(rgb, radix: 16)
        return "#" + String(repeating: "0", count: 6 - hex.count) + hex
    }
}
