import CLibWebSockets
import Foundation
import SnapboardAuth
import SnapboardLWS
import SnapboardProtocol

extension Server {
    /// `GET /v1/canvases/{id}/access`: what the presented token may do on canvas `id`, with the checks an
    /// upgrade makes (Host, Origin, token), so a client whose WebSocket was refused can learn why (its
    /// browser shows it only a failed socket). 200 `{"canvas","role","user","name","expiresAt","tokens"}`,
    /// 401 with the token's `reason`, 403 with `origin` or `host`. Reads no storage, so it says nothing of
    /// whether the canvas exists; each check is rate-limited like a heavy read (per address, per token),
    /// since a stranger may ask it as often as they like.
    func answerAccess(_ socket: LWSSocket, _ id: String, queryToken: String?) -> Int32 {
        let given = Self.bearer(socket.header(WSI_TOKEN_HTTP_AUTHORIZATION)) ?? queryToken
        if let limits = group?.readLimits, let refusal = limits.admit(ip: socket.peerAddress, token: given, now: Acceptor.monotonicSeconds()) {
            countRefusal(refusal.reason)
            return respondNow(socket, .error(429, "rate_limited", refusal.message).retrying(after: refusal.retryAfter))
        }
        switch admit(socket, canvas: id, queryToken: queryToken, upgrade: true) {
        case .refused(let status, _, let reason, let message):
            return respondNow(socket, .error(status, status == 401 ? "unauthorized" : "forbidden", message, reason: reason))
        case .admitted(let claims):
            return respondNow(socket, HTTPResponse(200, "application/json", Self.accessJSON(id, claims: claims, tokens: options.tokens != nil)))
        }
    }

    /// The access answer: a token's role, user, presence name and expiry; on a server that requires no
    /// token (`claims` nil), an editor's role and nulls.
    static func accessJSON(_ id: String, claims: AccessClaims?, tokens: Bool) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.string("canvas", id)
        w.string("role", (claims?.role ?? .editor).rawValue)
        if let claims {
            w.string("user", claims.subject)
            // The name presence shows for this token (P1, "Access").
            if let name = DisplayName.clean(claims.name ?? "") ?? DisplayName.clean(claims.subject) { w.string("name", name) } else { w.null("name") }
            w.number("expiresAt", claims.expires)
        } else {
            w.null("user")
            w.null("name")
            w.null("expiresAt")
        }
        w.bool("tokens", tokens)
        w.endObject()
        return w.bytes
    }
}
