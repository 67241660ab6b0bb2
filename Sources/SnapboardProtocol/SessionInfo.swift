import SnapboardCore

/// A session as others see it.
public struct SessionInfo: Hashable, Sendable {
    public var session: Int
    public var name: String
    public var client: String?
    /// Who the session is, from its access token's `sub`, on a server that requires tokens.
    public var user: String?
    /// The session's place in `palette` (0 ..< 12): the room gives each live session a free one, so up to
    /// 12 people in a canvas are told apart (P11). Starts at `hashSlot`.
    public var colorSlot: Int

    public init(session: Int, name: String, client: String?, user: String? = nil) {
        (self.session, self.name, self.client, self.user) = (session, name, client, user)
        colorSlot = Self.hashSlot(Self.colorKey(session: session, client: client, user: user))
    }

    /// The colours sessions are drawn in, `#rrggbb`, each dark enough to read on white and far enough from
    /// the others to tell apart (P11).
    public static let palette = [
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#17becf", "#7f7f00", "#393b79", "#f0027f", "#006d5b",
    ]

    /// The colour others draw this session in (its cursor, its leases).
    public var color: String { Self.palette[((colorSlot % Self.palette.count) + Self.palette.count) % Self.palette.count] }

    /// Who the colour belongs to, across reconnects: the client id (within the token's user, when there is
    /// one), else the user, else only this session.
    public var colorKey: String { Self.colorKey(session: session, client: client, user: user) }

    static func colorKey(session: Int, client: String?, user: String?) -> String {
        if let client { return "c:" + (user.map { "\($0.utf8.count):\($0)/" } ?? "") + client }
        if let user { return "u:" + user }
        return "s:\(session)"
    }

    /// The slot a colour key hashes to: where its session goes when that slot is free.
    public static func hashSlot(_ key: String) -> Int {
        Int(SeededGenerator.fnv1a(key.utf8) % UInt64(palette.count))
    }
}
