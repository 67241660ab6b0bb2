import SnapboardProtocol

/// The claims of a verified access token: who (`sub`), which canvases (`canvas`), as what (`role`), until
/// when (`exp`), and a display name for presence (`name`, optional).
public struct AccessClaims: Hashable, Sendable {
    public var subject: String
    /// A canvas id, or a prefix pattern: `team-42-*` grants every canvas whose id starts with `team-42-`,
    /// and `*` grants every canvas.
    public var canvas: String
    public var role: AccessRole
    /// Seconds since 1970, UTC.
    public var expires: Double
    /// Not valid before this (seconds since 1970), when the token says.
    public var notBefore: Double?
    public var name: String?

    public init(subject: String, canvas: String, role: AccessRole, expires: Double, notBefore: Double? = nil, name: String? = nil) {
        self.subject = subject
        self.canvas = canvas
        self.role = role
        self.expires = expires
        self.notBefore = notBefore
        self.name = name
    }

    /// True when the token's `canvas` claim covers `id`.
    public func grants(canvas id: String) -> Bool {
        if canvas.hasSuffix("*") { return id.hasPrefix(canvas.dropLast()) }
        return canvas == id
    }

    /// The claims as a JWT payload.
    var json: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.string("sub", subject)
        w.string("canvas", canvas)
        w.string("role", role.rawValue)
        w.number("exp", expires.rounded(.down))
        if let notBefore { w.number("nbf", notBefore.rounded(.down)) }
        if let name { w.string("name", name) }
        w.endObject()
        return w.bytes
    }

    /// Reads the claims of a JWT payload; throws `.malformed` naming the claim that is missing or wrong.
    init(json: JSONValue) throws(TokenError) {
        guard case .string(let sub)? = json["sub"], !sub.isEmpty, sub.utf8.count <= 256 else { throw .malformed("sub must be a string of 1–256 bytes") }
        guard case .string(let canvas)? = json["canvas"], !canvas.isEmpty else { throw .malformed("canvas must be a canvas id or a prefix ending in *") }
        guard case .string(let role)? = json["role"], let accessRole = AccessRole(rawValue: role) else { throw .malformed("role must be editor or viewer") }
        guard case .number(let exp)? = json["exp"], exp.isFinite else { throw .malformed("exp must be a NumericDate") }
        var notBefore: Double?
        if let nbf = json["nbf"] {
            guard case .number(let n) = nbf, n.isFinite else { throw .malformed("nbf must be a NumericDate") }
            notBefore = n
        }
        var name: String?
        if let value = json["name"] {
            guard case .string(let n) = value else { throw .malformed("name must be a string") }
            name = n
        }
        self.init(subject: sub, canvas: canvas, role: accessRole, expires: exp, notBefore: notBefore, name: name)
    }
}
