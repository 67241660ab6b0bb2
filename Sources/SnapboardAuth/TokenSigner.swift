import Crypto
import CryptoExtras
import Foundation

/// Mints tokens: HS256 with a secret, ES256 or RS256 with a private key (`snapboard-server token`, tests).
public struct TokenSigner: Sendable {
    enum Key: Sendable {
        case hs256(SymmetricKey)
        case es256(P256.Signing.PrivateKey)
        case rs256(_RSA.Signing.PrivateKey)

        var algorithm: String {
            switch self {
            case .hs256: "HS256"
            case .es256: "ES256"
            case .rs256: "RS256"
            }
        }
    }

    let key: Key

    public init(secret: String) throws {
        guard secret.utf8.count >= 32 else { throw TokenConfigError("the secret must be at least 32 bytes") }
        key = .hs256(SymmetricKey(data: Data(secret.utf8)))
    }

    /// A signer for HS256 with a key a verifier already holds (`TokenVerifier.signer`).
    init(hs256 secret: SymmetricKey) {
        key = .hs256(secret)
    }

    /// A signer for a P-256 (ES256) or RSA (RS256) private key in PEM.
    public init(privateKeyPEM pem: String) throws {
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            self.key = .es256(key)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            self.key = .rs256(key)
        } else {
            throw TokenConfigError("the private key is neither a P-256 nor an RSA key (2048 bits or more) in PEM")
        }
    }

    /// The compact JWS of `claims`.
    public func sign(_ claims: AccessClaims) throws -> String {
        let signed = Base64URL.encode(Array(#"{"alg":"\#(key.algorithm)","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(claims.json)
        let input = Array(signed.utf8)
        let signature: [UInt8] = switch key {
        case .hs256(let secret): Array(HMAC<SHA256>.authenticationCode(for: input, using: secret))
        case .es256(let privateKey): Array(try privateKey.signature(for: input).rawRepresentation)
        case .rs256(let privateKey): Array(try privateKey.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
        return signed + "." + Base64URL.encode(signature)
    }
}
