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
    /// When the token was issued (seconds since 1970), when the token says.
    public var issuedAt: Double?
    public var name: String?
    /// The audience the token was minted for (`aud`; a token may name several, and one is kept here: the one
    /// the verifier asked for, else the first).
    public var audience: String?
    /// Who minted the token (`iss`).
    public var issuer: String?

    public init(subject: String, canvas: String, role: AccessRole, expires: Double, notBefore: Double? = nil, name: String? = nil,
                issuedAt: Double? = nil, audience: String? = nil, issuer: String? = nil) {
        self.subject = subject
        self.canvas = canvas
        self.role = role
        self.expires = expires
        self.notBefore = notBefore
        self.name = name
        self.issuedAt = issuedAt
        self.audience = audience
        self.issuer = issuer
    }

    /// The NumericDates (`exp`, `nbf`, `iat`) a token may carry: whole seconds from 1970 to the end of 9999.
    /// Anything else (a fraction, 1e308, a negative time) is malformed rather than rounded or compared, so
    /// no later arithmetic on it can overflow or mislead.
    public static let numericDates: ClosedRange<Double> = 0...253_402_300_799

    /// True when the token's `canvas` claim covers `id`.
    public func grants(canvas id: String) -> Bool {
        if canvas.hasSuffix("*") { return id.hasPrefix(canvas.dropLast()) }
        return canvas == id
    }

    /// True when every canvas `requested` names (an id, or a prefix ending in `*`) is one this token's
    /// `canvas` claim covers: what a token may hand on when it mints another.
    public func covers(claim requested: String) -> Bool {
        guard requested.hasSuffix("*") else { return grants(canvas: requested) }
        return canvas.hasSuffix("*") && requested.dropLast().hasPrefix(canvas.dropLast())
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
        if let issuedAt { w.number("iat", issuedAt.rounded(.down)) }
        if let name { w.string("name", name) }
        if let audience { w.string("aud", audience) }
        if let issuer { w.string("iss", issuer) }
        w.endObject()
        return w.bytes
    }

    /// Reads the claims of a JWT payload; throws `.malformed` naming the claim that is missing or wrong.
    init(json: JSONValue) throws(TokenError) {
        guard case .string(let sub)? = json["sub"], !sub.isEmpty, sub.utf8.count <= 256 else { throw .malformed("sub must be a string of 1–256 bytes") }
        guard case .string(let canvas)? = json["canvas"], !canvas.isEmpty else { throw .malformed("canvas must be a canvas id or a prefix ending in *") }
        guard case .string(let role)? = json["role"], let accessRole = AccessRole(rawValue: role) else { throw .malformed("role must be editor or viewer") }
        guard let exp = Self.numericDate(json["exp"]) else { throw .malformed(Self.numericDateRule("exp")) }
        var notBefore: Double?, issuedAt: Double?
        if let nbf = json["nbf"] {
            guard let n = Self.numericDate(nbf) else { throw .malformed(Self.numericDateRule("nbf")) }
            notBefore = n
        }
        if let iat = json["iat"] {
            guard let n = Self.numericDate(iat) else { throw .malformed(Self.numericDateRule("iat")) }
            issuedAt = n
        }
        var name: String?
        if let value = json["name"] {
            guard case .string(let n) = value else { throw .malformed("name must be a string") }
            name = n
        }
        var issuer: String?
        if case .string(let iss)? = json["iss"] { issuer = iss }
        self.init(subject: sub, canvas: canvas, role: accessRole, expires: exp, notBefore: notBefore, name: name, issuedAt: issuedAt,
                  audience: Self.audiences(json["aud"]).first, issuer: issuer)
    }

    /// A whole number of seconds within `numericDates`; nil for anything else.
    static func numericDate(_ value: JSONValue?) -> Double? {
        guard case .number(let n)? = value, numericDates.contains(n), n == n.rounded(.towardZero) else { return nil }
        return n
    }

    static func numericDateRule(_ claim: String) -> String {
        "\(claim) must be a NumericDate: whole seconds since 1970, 0...\(Int(numericDates.upperBound))"
    }

    /// The audiences an `aud` claim names: one string, or an array of them (RFC 7519 §4.1.3); anything else
    /// names none.
    static func audiences(_ value: JSONValue?) -> [String] {
        switch value {
        case .string(let one)?: return [one]
        case .array(let many)?: return many.compactMap { if case .string(let s) = $0 { s } else { nil } }
        default: return []
        }
    }
}
