import Crypto
import CryptoExtras
import Foundation
import SnapboardProtocol

/// Verifies the JWTs (RFC 7519, compact JWS) that grant access to canvases, with swift-crypto doing every
/// cryptographic step. Synchronous on purpose: the server decides inside a libwebsockets callback on its
/// service thread whether an upgrade gets 101 or 401, and jwt-kit 5 only verifies through an actor
/// (`async`), which that thread cannot wait for. HS256 takes a shared secret; ES256 and RS256 a PEM public
/// key. The `alg` a token names must match a configured key (so `none`, or HS256 signed with a public key
/// as the secret, never verifies).
public struct TokenVerifier: Sendable {
    enum Key: Sendable {
        case hs256(SymmetricKey)
        case es256(P256.Signing.PublicKey)
        case rs256(_RSA.Signing.PublicKey)

        var algorithm: String {
            switch self {
            case .hs256: "HS256"
            case .es256: "ES256"
            case .rs256: "RS256"
            }
        }
    }

    let keys: [Key]
    /// When set, a token's `aud` (a string, or an array of strings) must name it.
    public let audience: String?
    /// When set, a token's `iss` must be exactly it.
    public let issuer: String?
    /// Tokens longer than this are refused before any decoding.
    public static let maxTokenBytes = 4096

    /// A verifier for tokens signed with `secret` (HS256), with the private key of `publicKeyPEM` (ES256
    /// for a P-256 key, RS256 for an RSA key of 2,048 bits or more), or either; for `audience` and from
    /// `issuer` when they are given. Throws when the PEM is neither, or when neither is given.
    public init(secret: String? = nil, publicKeyPEM: String? = nil, audience: String? = nil, issuer: String? = nil) throws {
        self.audience = audience
        self.issuer = issuer
        var keys: [Key] = []
        if let secret {
            // RFC 7518 §3.2: an HS256 key is at least as long as the hash.
            guard secret.utf8.count >= 32 else { throw TokenConfigError("--auth-secret must be at least 32 bytes") }
            keys.append(.hs256(SymmetricKey(data: Data(secret.utf8))))
        }
        if let pem = publicKeyPEM {
            if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
                keys.append(.es256(key))
            } else if let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem) {
                keys.append(.rs256(key))
            } else {
                throw TokenConfigError("the public key is neither a P-256 (ES256) nor an RSA (RS256, 2048 bits or more) key in PEM")
            }
        }
        guard !keys.isEmpty else { throw TokenConfigError("no key to verify tokens with") }
        self.keys = keys
    }

    /// A signer for tokens this verifier accepts, when it holds a shared secret (HS256): the server mints
    /// with it (`POST /v1/tokens`). Nil with a public key only, whose private half is elsewhere.
    public var signer: TokenSigner? {
        for case .hs256(let secret) in keys { return TokenSigner(hs256: secret) }
        return nil
    }

    /// The algorithms this verifier accepts, for the startup log.
    public var algorithms: [String] { keys.map(\.algorithm) }

    /// The claims of `token` when its signature verifies with a configured key and it is valid at `now`
    /// (seconds since 1970), for `canvas` when one is given.
    public func verify(_ token: String, now: Double, canvas: String? = nil) throws(TokenError) -> AccessClaims {
        guard token.utf8.count <= Self.maxTokenBytes else { throw .malformed("longer than \(Self.maxTokenBytes) bytes") }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2])
        else { throw .malformed("not three base64url parts") }
        guard let header = try? JSONValue.parse(headerBytes), case .string(let alg)? = header["alg"] else {
            throw .malformed("the header is not JSON with an alg")
        }
        // RFC 7515 §4.1.11: a token with critical extensions this server does not know is refused.
        guard header["crit"] == nil else { throw .malformed("crit extensions are not supported") }
        guard let key = keys.first(where: { $0.algorithm == alg }) else { throw .unsupportedAlgorithm(alg) }
        let signed = Array(token.utf8.prefix(parts[0].count + 1 + parts[1].count))
        guard Self.isValid(signature, of: signed, with: key) else { throw .badSignature }
        guard let payload = try? JSONValue.parse(payloadBytes) else { throw .malformed("the payload is not JSON") }
        var claims = try AccessClaims(json: payload)
        if let audience {
            guard AccessClaims.audiences(payload["aud"]).contains(audience) else { throw .wrongAudience }
            claims.audience = audience
        }
        if let issuer, claims.issuer != issuer { throw .wrongIssuer }
        guard now < claims.expires else { throw .expired }
        if let nbf = claims.notBefore, now < nbf { throw .notYetValid }
        if let canvas, !claims.grants(canvas: canvas) { throw .wrongCanvas }
        return claims
    }

    static func isValid(_ signature: [UInt8], of signed: [UInt8], with key: Key) -> Bool {
        switch key {
        case .hs256(let secret):
            return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: secret)
        case .es256(let publicKey):
            // JWS carries ECDSA signatures as r‖s, 32 bytes each (RFC 7518 §3.4).
            guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return publicKey.isValidSignature(ecdsa, for: signed)
        case .rs256(let publicKey):
            // RS256 is RSASSA-PKCS1-v1_5 with SHA-256 by definition (RFC 7518 §3.3).
            return publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: signed,
                                              padding: .insecurePKCS1v1_5)
        }
    }
}
