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
        guard origins.allowsHost(host) else { return .refused(status: 403, label: "host", reason: "host", message: "unknown Host") }
        if upgrade, !origins.allowsOrigin(socket.header(WSI_TOKEN_ORIGIN), host: host) {
            return .refused(status: 403, label: "origin", reason: "origin", message: "Origin not allowed")
        }
        guard let canvas, let tokens = options.tokens else { return .admitted(nil) }
        guard let token = Self.bearer(socket.header(WSI_TOKEN_HTTP_AUTHORIZATION)) ?? queryToken else {
            return .refused(status: 401, label: TokenError.missing.label, reason: TokenError.missing.reason,
                            message: TokenError.missing.description)
        }
        do throws(TokenError) {
            return .admitted(try tokens.verify(token, now: Date().timeIntervalSince1970, canvas: canvas))
        } catch {
            return .refused(status: 401, label: error.label, reason: error.reason, message: error.description)
        }
    }

    /// True when `/metrics` may be answered: always without `--admin-token`, else for requests carrying it.
    func admitsAdmin(_ socket: LWSSocket, queryToken: String?) -> Bool {
        guard let admin = options.adminToken else { return true }
        guard let given = Self.bearer(socket.header(WSI_TOKEN_HTTP_AUTHORIZATION)) ?? queryToken else { return false }
        return AdminToken.matches(given, admin)
    }

    /// The 429 for an address that failed the admin token too often, with the seconds to wait; nil when it
    /// may try. The process's guard is the shards' (a server outside `Shards` keeps none).
    func adminThrottle(_ peer: String) -> HTTPResponse? {
        guard let guarded = group?.adminGuard else { return nil }
        let now = Acceptor.monotonicSeconds()
        let (wait, lines) = guarded.withLock { guardState -> (Double?, [String]) in
            guard let wait = guardState.retryAfter(peer, now: now) else { return (nil, []) }
            return (wait, guardState.log.admit("admin authentication throttled: \(peer) failed too often", now: now))
        }
        guard let wait else { return nil }
        countRefusal("admin_throttled")
        for line in lines { logger.warning("\(line)") }
        let seconds = max(1, Int(wait.rounded(.up)))
        var response = HTTPResponse.error(429, "rate_limited", "too many failed admin authentications from this address; retry in \(seconds) s")
        response.headers.append(("Retry-After", "\(seconds)"))
        return response
    }

    /// The refusals of a token that is not signed with a key of the server's: where the admin token is
    /// also tried, such a token may be a guess at it. (An expired or other-canvas JWT is signed: no guess.)
    static let guessReasons: Set<String> = Set([TokenError.malformed(""), .unsupportedAlgorithm(""), .badSignature].map(\.label))

    /// Counts and logs (within the log's limit) a wrong admin token from `peer`.
    func adminFailed(_ peer: String) {
        guard let guarded = group?.adminGuard else { return }
        let now = Acceptor.monotonicSeconds()
        let lines = guarded.withLock { guardState -> [String] in
            guardState.fail(peer, now: now)
            return guardState.log.admit("admin authentication failed: \(peer)", now: now)
        }
        for line in lines { logger.warning("\(line)") }
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
