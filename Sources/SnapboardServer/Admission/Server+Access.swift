import CLibWebSockets
import Foundation
import SnapboardAuth
import SnapboardLWS
import SnapboardProtocol

extension Server {
    /// The Host, then the Origin (upgrades only: a page on another site can open a WebSocket, but cannot
    /// read an HTTP answer), then, when the server requires tokens, the token and the canvas it grants.
    func admit(_ socket: LWSSocket, canvas: String?, queryToken: String?, upgrade: Bool) -> Admission {
        let host = socket.header(WSI_TOKEN_HOST)
        guard origins.allowsHost(host) else { return .refused(status: 403, reason: "host", message: "unknown Host") }
        if upgrade, !origins.allowsOrigin(socket.header(WSI_TOKEN_ORIGIN), host: host) {
            return .refused(status: 403, reason: "origin", message: "Origin not allowed")
        }
        guard let canvas, let tokens = options.tokens else { return .admitted(nil) }
        guard let token = Self.bearer(socket.header(WSI_TOKEN_HTTP_AUTHORIZATION)) ?? queryToken else {
            return .refused(status: 401, reason: TokenError.missing.label, message: TokenError.missing.description)
        }
        do throws(TokenError) {
            return .admitted(try tokens.verify(token, now: Date().timeIntervalSince1970, canvas: canvas))
        } catch {
            return .refused(status: 401, reason: error.label, message: error.description)
        }
    }

    /// True when `/metrics` may be answered: always without `--admin-token`, else for requests carrying it.
    func admitsAdmin(_ socket: LWSSocket, queryToken: String?) -> Bool {
        guard let admin = options.adminToken else { return true }
        guard let given = Self.bearer(socket.header(WSI_TOKEN_HTTP_AUTHORIZATION)) ?? queryToken else { return false }
        return AdminToken.matches(given, admin)
    }

    /// The token of an `Authorization: Bearer <token>` header (the scheme is case-insensitive).
    static func bearer(_ authorization: String?) -> String? {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else { return nil }
        let token = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// Counts a refusal for `/metrics`.
    func countRefusal(_ reason: String) {
        refusals[reason, default: 0] += 1
    }
}
