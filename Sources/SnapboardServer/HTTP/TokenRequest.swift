import SnapboardAuth
import SnapboardProtocol

/// The body of `POST /v1/tokens`: `{"canvas":ID or PREFIX*,"role":"viewer"|"editor","ttl"?:SECONDS,
/// "name"?:TEXT,"sub"?:TEXT}`. Every field is range-checked here, and anything else is refused, so that a
/// typo (`"tll"`) is an error rather than a week-long token.
struct TokenRequest: Equatable {
    var canvas: String
    var role: AccessRole
    var ttl: Int
    /// The display name, cleaned as presence cleans names (P11).
    var name: String?
    var subject: String?

    /// Lifetimes a minted token may have: a minute to 30 days.
    static let ttls = 60...2_592_000
    /// A week.
    static let defaultTTL = 604_800
    static let fields: Set<String> = ["canvas", "role", "ttl", "name", "sub"]

    struct Invalid: Error, Equatable {
        var message: String
    }

    /// True for a plain canvas id (not a prefix): the minted token then comes with a link to its page.
    var namesOneCanvas: Bool { !canvas.hasSuffix("*") }

    static func parse(_ body: [UInt8]) -> Result<TokenRequest, Invalid> {
        guard let json = try? JSONValue.parse(body), case .object(let fields) = json else {
            return .failure(Invalid(message: #"the body must be a JSON object: {"canvas","role","ttl"?,"name"?,"sub"?}"#))
        }
        if let unknown = fields.keys.sorted().first(where: { !Self.fields.contains($0) }) {
            return .failure(Invalid(message: "unknown field \(unknown): the fields are canvas, role, ttl, name and sub"))
        }
        guard case .string(let canvas)? = fields["canvas"], isCanvasClaim(canvas) else {
            return .failure(Invalid(message: "canvas must be a canvas id (1–64 of [A-Za-z0-9_-]) or such a prefix ending in * (* alone: every canvas)"))
        }
        guard case .string(let roleName)? = fields["role"], let role = AccessRole(rawValue: roleName) else {
            return .failure(Invalid(message: "role must be viewer or editor"))
        }
        var ttl = defaultTTL
        if let value = fields["ttl"] {
            guard case .number(let n) = value, n == n.rounded(), n >= Double(ttls.lowerBound), n <= Double(ttls.upperBound) else {
                return .failure(Invalid(message: "ttl must be whole seconds, \(ttls.lowerBound)...\(ttls.upperBound) (a minute to 30 days)"))
            }
            ttl = Int(n)
        }
        var name: String?
        if let value = fields["name"] {
            guard case .string(let raw) = value, raw.count <= DisplayName.maxCharacters, let cleaned = DisplayName.clean(raw) else {
                return .failure(Invalid(message: "name must be a display name of 1–\(DisplayName.maxCharacters) characters"))
            }
            name = cleaned
        }
        var subject: String?
        if let value = fields["sub"] {
            guard case .string(let sub) = value, (1...256).contains(sub.utf8.count) else {
                return .failure(Invalid(message: "sub must be a string of 1–256 bytes"))
            }
            subject = sub
        }
        return .success(TokenRequest(canvas: canvas, role: role, ttl: ttl, name: name, subject: subject))
    }

    /// A canvas id, or a prefix of one followed by `*`.
    static func isCanvasClaim(_ text: String) -> Bool {
        guard text.hasSuffix("*") else { return CanvasAddress.isValidCanvasID(text) }
        let prefix = String(text.dropLast())
        return prefix.isEmpty || CanvasAddress.isValidCanvasID(prefix)
    }
}
