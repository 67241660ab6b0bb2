import Foundation
import SnapboardAuth
import SnapboardLWS
import SnapboardProtocol

extension Server {
    /// The 404 of `POST /v1/tokens` on a server that cannot mint: one that requires no token, or one that
    /// verifies with a public key only (the private key, and so the minting, is elsewhere). Nil when it can.
    func mintingAbsent() -> HTTPResponse? {
        guard let tokens = options.tokens else { return .error(404, "not_found", "this server does not use access tokens") }
        guard tokens.signer != nil else {
            return .error(404, "not_found", "this server verifies tokens made elsewhere (a public key, no --auth-secret): it mints none")
        }
        return nil
    }

    /// `POST /v1/tokens`: mints an access token signed with the server's secret. The admin token mints any;
    /// an editor's access token mints tokens for what its own claim covers, with no later expiry than its
    /// own, and names no `sub` (the minted one is new); a viewer's mints none. 201
    /// `{"token","canvas","role","expiresAt","link"}`.
    func mintToken(_ socket: LWSSocket, body: [UInt8], grant: APIRequest.Grant) -> Int32 {
        guard let tokens = options.tokens, let signer = tokens.signer else {
            return respondNow(socket, mintingAbsent() ?? .error(404, "not_found"))
        }
        let asked: TokenRequest
        switch TokenRequest.parse(body) {
        case .success(let parsed): asked = parsed
        case .failure(let why): return respondNow(socket, .error(400, "bad_request", why.message))
        }
        let now = Date().timeIntervalSince1970.rounded(.down)
        var expires = now + Double(asked.ttl)
        let minter: String
        switch grant {
        case .admin:
            minter = "admin"
        case .token(let claims):
            if let refusal = Self.mintRefusal(asked, by: claims) {
                countRefusal("mint")
                return respondNow(socket, refusal)
            }
            expires = min(expires, claims.expires)
            minter = claims.subject
        case .anyone:
            // `authoriseAdminOrToken` lets no one through unnamed on a server with tokens.
            return respondNow(socket, .error(401, "unauthorized", "minting a token needs an access token or the admin token",
                                             reason: TokenError.missing.reason))
        }
        let claims = AccessClaims(subject: asked.subject ?? Self.newSubject(), canvas: asked.canvas, role: asked.role, expires: expires,
                                  name: asked.name, issuedAt: now, audience: tokens.audience, issuer: tokens.issuer)
        let token: String
        do { token = try signer.sign(claims) } catch {
            logger.error("minting a token failed", metadata: ["error": "\(error)"])
            return respondNow(socket, .error(503, "unavailable", "the token could not be signed"))
        }
        logger.info("token minted", metadata: [
            "canvas": "\(claims.canvas)", "role": "\(claims.role.rawValue)", "sub": "\(claims.subject)", "by": "\(minter)",
            "expires": "\(Int(expires))",
        ])
        var w = JSONWriter()
        w.beginObject()
        w.string("token", token)
        w.string("canvas", claims.canvas)
        w.string("role", claims.role.rawValue)
        w.number("expiresAt", expires)
        if asked.namesOneCanvas { w.string("link", "/c/\(claims.canvas)?token=\(token)") } else { w.null("link") }
        w.endObject()
        return respondNow(socket, HTTPResponse(201, "application/json", w.bytes))
    }

    /// Why an access token may not mint what was asked, or nil: only an editor's mints, only within its
    /// own claim, and only the admin names a `sub` (another person's, or a token holder's own).
    static func mintRefusal(_ asked: TokenRequest, by claims: AccessClaims) -> HTTPResponse? {
        guard claims.role == .editor else {
            return .error(403, "forbidden", "a viewer's token mints no tokens", reason: "role")
        }
        guard claims.covers(claim: asked.canvas) else {
            return .error(403, "forbidden", "this token's canvases (\(claims.canvas)) do not cover \(asked.canvas)", reason: "wrong_canvas")
        }
        guard asked.subject == nil else {
            return .error(403, "forbidden", "only the admin token names the sub of a token it mints", reason: "sub")
        }
        return nil
    }

    /// A fresh `sub` for a minted token: whoever holds it is someone new, not the minter.
    static func newSubject() -> String {
        "link-" + String(UInt64.random(in: .min ... .max), radix: 16)
    }
}
