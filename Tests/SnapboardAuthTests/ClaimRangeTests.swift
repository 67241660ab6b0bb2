import Crypto
import Foundation
import Testing

@testable import SnapboardAuth

/// The time claims are whole seconds in range, and the audience and issuer are checked when the server
/// names them.
@Suite struct ClaimRangeTests {
    let now = 1_800_000_000.0
    let secret = "a-development-secret-of-32-bytes-or-more"

    /// An HS256 token of `payload`, whatever it holds.
    func signed(_ payload: String) -> String {
        let key = SymmetricKey(data: Data(secret.utf8))
        let input = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        return input + "." + Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: key)))
    }

    func payload(_ extra: String, exp: String = "1800003600") -> String {
        #"{"sub":"a","canvas":"c","role":"editor","exp":\#(exp)\#(extra)}"#
    }

    @Test(arguments: ["1e308", "-1", "1800003600.5", "253402300800", "\"1800003600\"", "true", "null", "[1800003600]"])
    func anExpiryThatIsNotAWholeSecondInRangeIsMalformed(exp: String) throws {
        let verifier = try TokenVerifier(secret: secret)
        #expect(throws: TokenError.malformed("exp must be a NumericDate: whole seconds since 1970, 0...253402300799")) {
            try verifier.verify(signed(payload("", exp: exp)), now: now)
        }
    }

    @Test(arguments: ["nbf", "iat"], ["1e308", "-5", "0.25", "1e300", "\"0\"", "{}"])
    func notBeforeAndIssuedAtAreWholeSecondsInRange(claim: String, value: String) throws {
        let verifier = try TokenVerifier(secret: secret)
        #expect(throws: TokenError.malformed("\(claim) must be a NumericDate: whole seconds since 1970, 0...253402300799")) {
            try verifier.verify(signed(payload(#","\#(claim)":\#(value)"#)), now: now)
        }
    }

    @Test func wholeSecondsInRangeVerify() throws {
        let verifier = try TokenVerifier(secret: secret)
        let claims = try verifier.verify(signed(payload(#","nbf":1799999000,"iat":1799999000"#)), now: now)
        #expect(claims.expires == 1_800_003_600 && claims.notBefore == 1_799_999_000 && claims.issuedAt == 1_799_999_000)
        // Written with an exponent, a whole number is still one.
        #expect(try verifier.verify(signed(payload("", exp: "18e8")), now: now - 1).expires == 1_800_000_000)
        #expect(throws: TokenError.expired) { try verifier.verify(signed(payload("", exp: "0")), now: now) }
    }

    @Test func theAudienceIsCheckedWhenTheServerNamesOne() throws {
        let verifier = try TokenVerifier(secret: secret, audience: "snapboard")
        #expect(try verifier.verify(signed(payload(#","aud":"snapboard""#)), now: now).subject == "a")
        #expect(try verifier.verify(signed(payload(#","aud":["other","snapboard"]"#)), now: now).subject == "a")
        for wrong in [#""#, #","aud":"other""#, #","aud":["other"]"#, #","aud":[]"#, #","aud":5"#, #","aud":"Snapboard""#] {
            #expect(throws: TokenError.wrongAudience, "\(wrong)") { try verifier.verify(signed(payload(wrong)), now: now) }
        }
        // Unnamed, any audience passes, as before.
        #expect(try TokenVerifier(secret: secret).verify(signed(payload(#","aud":"other""#)), now: now).subject == "a")
    }

    @Test func theIssuerIsCheckedWhenTheServerNamesOne() throws {
        let verifier = try TokenVerifier(secret: secret, issuer: "https://auth.example.com")
        #expect(try verifier.verify(signed(payload(#","iss":"https://auth.example.com""#)), now: now).subject == "a")
        for wrong in [#""#, #","iss":"https://evil.example.com""#, #","iss":["https://auth.example.com"]"#, #","iss":null"#] {
            #expect(throws: TokenError.wrongIssuer, "\(wrong)") { try verifier.verify(signed(payload(wrong)), now: now) }
        }
        #expect(try TokenVerifier(secret: secret).verify(signed(payload(#","iss":"anyone""#)), now: now).subject == "a")
    }

    @Test func theSignerWritesTheAudienceAndIssuerItIsGiven() throws {
        var claims = AccessClaims(subject: "bo", canvas: "b", role: .viewer, expires: now + 60)
        claims.audience = "snapboard"
        claims.issuer = "ops"
        let token = try TokenSigner(secret: secret).sign(claims)
        let verified = try TokenVerifier(secret: secret, audience: "snapboard", issuer: "ops").verify(token, now: now)
        #expect(verified.audience == "snapboard" && verified.issuer == "ops")
    }

    @Test func theErrorsHaveLabelsForMetrics() {
        #expect(TokenError.wrongAudience.label == "audience")
        #expect(TokenError.wrongIssuer.label == "issuer")
    }
}
