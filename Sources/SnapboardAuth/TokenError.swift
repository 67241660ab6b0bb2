/// Why a token was not accepted. Each case is answered with HTTP 401 and its description.
public enum TokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No token in the request.
    case missing
    /// Not three base64url parts, not JSON, or a claim missing or of the wrong type.
    case malformed(String)
    /// An `alg` the server has no key for (`none` among them).
    case unsupportedAlgorithm(String)
    case badSignature
    case expired
    case notYetValid
    /// The `canvas` claim does not cover the canvas asked for.
    case wrongCanvas
    /// The server names an audience (`--jwt-audience`) and the `aud` claim does not.
    case wrongAudience
    /// The server names an issuer (`--jwt-issuer`) and the `iss` claim is another, or missing.
    case wrongIssuer

    public var description: String {
        switch self {
        case .missing: "a token is required (Authorization: Bearer, or ?token=)"
        case .malformed(let why): "malformed token: \(why)"
        case .unsupportedAlgorithm(let alg): "token algorithm \(alg) is not accepted here"
        case .badSignature: "token signature does not verify"
        case .expired: "token expired"
        case .notYetValid: "token not valid yet"
        case .wrongCanvas: "token is for another canvas"
        case .wrongAudience: "token is for another audience"
        case .wrongIssuer: "token is from another issuer"
        }
    }

    /// The stable reason an HTTP 401 body gives (`"reason"`), so a client can say what is wrong: a token the
    /// server cannot read and one signed with a key it does not hold are `malformed` and `bad_signature`
    /// (an algorithm it has no key for counts as a signature it cannot check).
    public var reason: String {
        switch self {
        case .missing: "missing"
        case .malformed: "malformed"
        case .unsupportedAlgorithm, .badSignature: "bad_signature"
        case .expired: "expired"
        case .notYetValid: "not_yet_valid"
        case .wrongCanvas: "wrong_canvas"
        case .wrongAudience: "wrong_audience"
        case .wrongIssuer: "wrong_issuer"
        }
    }

    /// A short label for metrics.
    public var label: String {
        switch self {
        case .missing: "missing"
        case .malformed: "malformed"
        case .unsupportedAlgorithm: "algorithm"
        case .badSignature: "signature"
        case .expired: "expired"
        case .notYetValid: "not_yet_valid"
        case .wrongCanvas: "wrong_canvas"
        case .wrongAudience: "audience"
        case .wrongIssuer: "issuer"
        }
    }
}
