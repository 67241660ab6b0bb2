import Crypto
import CryptoExtras
import Foundation
import Testing

@testable import SnapboardAuth

/// Tokens minted by another implementation (PyJWT 2, with keys made by `openssl`), so that this verifier
/// is checked against the standard and not only against its own signer. Claims:
/// `{"sub":"ada","canvas":"team-42-*","role":"viewer","exp":4102444800,"name":"Ada"}`.
enum Interop {
    static let secret = "interop-secret-that-is-32-bytes-long!!"
    static let hs256 = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZGEiLCJjYW52YXMiOiJ0ZWFtLTQyLSoiLCJyb2xlIjoidmlld2VyIiwiZXhwIjo0MTAyNDQ0ODAwLCJuYW1lIjoiQWRhIn0.gGmk229TiFZdlQaWfNEFyXYhuRbmaZvJ2QBLtIS8aUc"
    static let es256 = "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZGEiLCJjYW52YXMiOiJ0ZWFtLTQyLSoiLCJyb2xlIjoidmlld2VyIiwiZXhwIjo0MTAyNDQ0ODAwLCJuYW1lIjoiQWRhIn0.Tkgt7MpInU27Tbr7irlDZtKfaKL6v4F9hK0U8Ghb46gH3mg43SoPz35df-UPioVi4n3B2KHsdX3WQzQpP3A5fQ"
    static let rs256 = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZGEiLCJjYW52YXMiOiJ0ZWFtLTQyLSoiLCJyb2xlIjoidmlld2VyIiwiZXhwIjo0MTAyNDQ0ODAwLCJuYW1lIjoiQWRhIn0.cCtmml1Jw7r7cWyoWjAz0sQaGexODoVy6x7xmKbjhegqggtLQ-27QF-PHlTSqlx1-Qk5L4_D5RDB13mL-IFUYxRwcGZRV1yggENP7VqPX1IfOHFmG6K-DRjcMYNri0WAVNR-mPBaDTKMl3mDJjm40Ure8bdLyZpbxn2fVRtDKKbgjAdbgt5c8FpTR8OjBW48jBR4YnpHph73cAo8yVHj0iJ1yWdqHV4UKCdyZEAUuTsHg56tydhs77RaA-wwHlr3d7ggVeTrOWLpFPeN4PzstRcwE2Jllj5l5x67MmNZ3XRBPEP7KWpBv1mC7QDlYcx1r_uySPFSTlf3u5BdEytVuQ"
    static let ecPublicKey = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE4m0XbGRnA0OQxbGa7wezBUYr72b2
        mAJ3Jc1ENp5sOdcMM7k2opfxoKQ/p4DDZuD6l8b8JEownCd8v6G9VHN1ew==
        -----END PUBLIC KEY-----
        """
    static let rsaPublicKey = """
        -----BEGIN PUBLIC KEY-----
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEApw8ijXMAEIrGAbwGfJvA
        SXGW0bQ8h+VE78slTU6Pg/74SiFn1Gt6PHPNZj+ViC3+rcSCEQQMr9ACFagLiVY1
        OzdmJkJSonCr4HZm59pCGUjloC2KCst+S+qdAUBWT6nc9Bw7srKlr+H5D3JNwhG5
        rKkY07YgkZkJcUopB6l0C/gw5QFAf999Y5jURZZV0tuLrTISUbzznPbgRu5vGuYJ
        JZ+HeOkpz3hLnHrUdiTQCGuTC+3Ew8tLwPPzFBKOTrLDNqk/+X/VYokkm+Ts+oq9
        85RsVuDetsieuZtZy9U+f69ly5N1cyELzDh19bnzL/0GKTRLf7csILi3ShDP2ZfR
        ZwIDAQAB
        -----END PUBLIC KEY-----
        """
    static let claims = AccessClaims(subject: "ada", canvas: "team-42-*", role: .viewer, expires: 4_102_444_800, name: "Ada")
}

@Suite struct TokenVerifierTests {
    let now = 1_800_000_000.0
    let secret = "a-development-secret-of-32-bytes-or-more"

    @Test func tokensFromAnotherImplementationVerify() throws {
        let hs = try TokenVerifier(secret: Interop.secret)
        #expect(try hs.verify(Interop.hs256, now: now, canvas: "team-42-board") == Interop.claims)
        let es = try TokenVerifier(publicKeyPEM: Interop.ecPublicKey)
        #expect(es.algorithms == ["ES256"])
        #expect(try es.verify(Interop.es256, now: now) == Interop.claims)
        let rs = try TokenVerifier(publicKeyPEM: Interop.rsaPublicKey)
        #expect(rs.algorithms == ["RS256"])
        #expect(try rs.verify(Interop.rs256, now: now) == Interop.claims)
    }

    @Test func aSecretAndAPublicKeyTogetherAcceptBoth() throws {
        let both = try TokenVerifier(secret: Interop.secret, publicKeyPEM: Interop.ecPublicKey)
        #expect(try both.verify(Interop.hs256, now: now).subject == "ada")
        #expect(try both.verify(Interop.es256, now: now).subject == "ada")
        #expect(throws: TokenError.unsupportedAlgorithm("RS256")) { try both.verify(Interop.rs256, now: now) }
    }

    @Test func aChangedByteAnywhereBreaksTheSignature() throws {
        let verifier = try TokenVerifier(secret: Interop.secret)
        let parts = Interop.hs256.split(separator: ".").map(String.init)
        // Another payload under the same signature: a viewer made editor.
        let forged = Base64URL.encode(Array(#"{"sub":"ada","canvas":"team-42-*","role":"editor","exp":4102444800}"#.utf8))
        #expect(throws: TokenError.badSignature) { try verifier.verify([parts[0], forged, parts[2]].joined(separator: "."), now: now) }
        var signature = Array(parts[2])
        signature[5] = signature[5] == "A" ? "B" : "A"
        #expect(throws: TokenError.badSignature) { try verifier.verify([parts[0], parts[1], String(signature)].joined(separator: "."), now: now) }
        #expect(throws: TokenError.badSignature) { try TokenVerifier(secret: secret + "x").verify(Interop.hs256, now: now) }
    }

    @Test func algorithmsWithoutAKeyAreRefused() throws {
        let payload = Base64URL.encode(AccessClaims(subject: "eve", canvas: "*", role: .editor, expires: 4e9).json)
        let none = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + payload + "."
        #expect(throws: TokenError.unsupportedAlgorithm("none")) { try TokenVerifier(secret: secret).verify(none, now: now) }
        // HS256 "signed" with the public key's text as the secret: the classic confusion attack.
        let confused = try TokenSigner(secret: Interop.ecPublicKey).sign(AccessClaims(subject: "eve", canvas: "*", role: .editor, expires: 4e9))
        #expect(throws: TokenError.unsupportedAlgorithm("HS256")) { try TokenVerifier(publicKeyPEM: Interop.ecPublicKey).verify(confused, now: now) }
    }

    @Test func expiryNotBeforeAndCanvas() throws {
        let signer = try TokenSigner(secret: secret)
        let verifier = try TokenVerifier(secret: secret)
        let token = try signer.sign(AccessClaims(subject: "bo", canvas: "board-1", role: .editor, expires: now + 60, notBefore: now - 60))
        #expect(try verifier.verify(token, now: now, canvas: "board-1").role == .editor)
        #expect(throws: TokenError.expired) { try verifier.verify(token, now: now + 60) }
        #expect(throws: TokenError.notYetValid) { try verifier.verify(token, now: now - 61) }
        #expect(throws: TokenError.wrongCanvas) { try verifier.verify(token, now: now, canvas: "board-10") }
        let prefix = try signer.sign(AccessClaims(subject: "bo", canvas: "team-42-*", role: .viewer, expires: now + 60))
        #expect(try verifier.verify(prefix, now: now, canvas: "team-42-x").role == .viewer)
        #expect(throws: TokenError.wrongCanvas) { try verifier.verify(prefix, now: now, canvas: "team-43-x") }
        let any = try signer.sign(AccessClaims(subject: "ops", canvas: "*", role: .editor, expires: now + 60))
        #expect(try verifier.verify(any, now: now, canvas: "whatever").subject == "ops")
    }

    @Test(arguments: [
        "", "abc", "a.b", "a.b.c.d", "!!!.e30.", "e30.e30.", "bm90IGpzb24.e30.",
        "eyJhbGciOiJIUzI1NiJ9=.e30.", String(repeating: "a", count: TokenVerifier.maxTokenBytes + 1),
    ])
    func malformedTokensAreMalformed(token: String) throws {
        let verifier = try TokenVerifier(secret: secret)
        do throws(TokenError) {
            _ = try verifier.verify(token, now: now)
            Issue.record("\(token.prefix(40)) verified")
        } catch {
            guard case .malformed = error else {
                Issue.record("\(token.prefix(40)): \(error), not malformed")
                return
            }
        }
    }

    @Test func missingOrWrongClaimsAreNamed() throws {
        let key = SymmetricKey(data: Data(secret.utf8))
        func signed(_ payload: String) -> String {
            let input = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
            return input + "." + Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: key)))
        }
        let verifier = try TokenVerifier(secret: secret)
        #expect(throws: TokenError.malformed("role must be editor or viewer")) {
            try verifier.verify(signed(#"{"sub":"a","canvas":"c","role":"admin","exp":4e9}"#), now: now)
        }
        #expect(throws: TokenError.malformed("exp must be a NumericDate: whole seconds since 1970, 0...253402300799")) {
            try verifier.verify(signed(#"{"sub":"a","canvas":"c","role":"editor"}"#), now: now)
        }
        #expect(throws: TokenError.malformed("sub must be a string of 1–256 bytes")) {
            try verifier.verify(signed(#"{"canvas":"c","role":"editor","exp":4e9}"#), now: now)
        }
        #expect(try verifier.verify(signed(#"{"sub":"a","canvas":"c","role":"editor","exp":4e9,"extra":[1]}"#), now: now).subject == "a")
    }

    @Test func freshKeysSignAndVerify() throws {
        let ec = P256.Signing.PrivateKey()
        let es256 = try TokenSigner(privateKeyPEM: ec.pemRepresentation).sign(Interop.claims)
        #expect(try TokenVerifier(publicKeyPEM: ec.publicKey.pemRepresentation).verify(es256, now: now) == Interop.claims)
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let rs256 = try TokenSigner(privateKeyPEM: rsa.pemRepresentation).sign(Interop.claims)
        #expect(try TokenVerifier(publicKeyPEM: rsa.publicKey.pemRepresentation).verify(rs256, now: now) == Interop.claims)
        #expect(throws: TokenError.badSignature) {
            try TokenVerifier(publicKeyPEM: P256.Signing.PrivateKey().publicKey.pemRepresentation).verify(es256, now: now)
        }
    }

    @Test func configurationErrors() {
        #expect(throws: TokenConfigError.self) { try TokenVerifier() }
        #expect(throws: TokenConfigError.self) { try TokenVerifier(secret: "short") }
        #expect(throws: TokenConfigError.self) { try TokenVerifier(publicKeyPEM: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----") }
    }

    @Test func rolesOnlyNarrow() {
        #expect(AccessRole.editor.narrowed(to: .viewer) == .viewer)
        #expect(AccessRole.viewer.narrowed(to: .editor) == .viewer)
        #expect(AccessRole.editor.narrowed(to: .editor) == .editor)
    }
}

@Suite struct OriginPolicyTests {
    @Test func withNoListOnlyTheServersOwnPageAndNonBrowsersPass() {
        let policy = OriginPolicy()
        #expect(policy.allowsOrigin(nil, host: "board.example.com"))
        #expect(policy.allowsOrigin("https://board.example.com", host: "board.example.com"))
        #expect(policy.allowsOrigin("http://localhost:8080", host: "localhost:8080"))
        #expect(!policy.allowsOrigin("http://localhost:9999", host: "localhost:8080"))
        #expect(!policy.allowsOrigin("https://evil.example", host: "board.example.com"))
        #expect(!policy.allowsOrigin("null", host: "board.example.com"))
    }

    @Test func listedOriginsAndWildcards() {
        let policy = OriginPolicy(allowedOrigins: ["https://app.example.com", "*.Team.example"])
        #expect(policy.allowsOrigin("https://app.example.com", host: "api.example.com"))
        #expect(!policy.allowsOrigin("http://app.example.com", host: "api.example.com"))
        #expect(policy.allowsOrigin("https://a.team.example:8443", host: "api.example.com"))
        #expect(!policy.allowsOrigin("https://team.example", host: "api.example.com"))
        #expect(!policy.allowsOrigin("https://evilteam.example", host: "api.example.com"))
        #expect(OriginPolicy(allowedOrigins: ["*"]).allowsOrigin("https://anything.test", host: "x"))
    }

    @Test func hosts() {
        #expect(OriginPolicy().allowsHost("rebound.evil.example"))
        let loopback = OriginPolicy(allowedHosts: OriginPolicy.loopbackHosts)
        #expect(loopback.allowsHost("127.0.0.1:8080"))
        #expect(loopback.allowsHost("localhost:8080"))
        #expect(loopback.allowsHost("[::1]:8080"))
        #expect(loopback.allowsHost("web.localhost"))
        #expect(!loopback.allowsHost("rebound.evil.example:8080"))
        #expect(!loopback.allowsHost(nil))
        #expect(OriginPolicy.isLoopback("127.0.0.1") && !OriginPolicy.isLoopback("0.0.0.0"))
    }
}
