import CLibWebSockets
import SnapboardCore
import SnapboardLWS
import SnapboardProtocol
import SnapboardLock

/// What a shard does differently from a server alone: limits counted across the process, requests that
/// reached the wrong shard, and answers (`/metrics`, `/healthz`, the listing) gathered from every shard.
extension Server {
    /// The canvases this server may hold at once: `--max-canvases` shared evenly among the shards, whose
    /// canvases are spread evenly by their ids' hash.
    var canvasLimit: Int {
        guard let shard else { return options.limits.canvases }
        return (options.limits.canvases + shard.count - 1) / shard.count
    }

    /// The connection limits, in all and per address, counted across every shard (under a lock, once per
    /// upgrade and close): takes a place for an admitted upgrade from `peer`, or says why not. The place is
    /// given back in `releaseConnection` when the socket closes, or when the upgrade fails.
    func reserveConnection(peer: String) -> Admission? {
        guard let group else { return nil }
        let limits = options.limits
        return group.admissions.withLock { open in
            if open.connections >= limits.connections {
                return .refused(status: 503, label: "connections", reason: nil, message: "the server is full")
            }
            if open.byPeer[peer, default: 0] >= limits.connectionsPerIP {
                return .refused(status: 429, label: "ip_connections", reason: nil, message: "too many connections from this address")
            }
            open.connections += 1
            open.byPeer[peer, default: 0] += 1
            return nil
        }
    }

    func releaseConnection(peer: String) {
        guard let group else { return }
        group.admissions.withLock { open in
            open.connections -= 1
            if let n = open.byPeer[peer], n > 1 { open.byPeer[peer] = n - 1 } else { open.byPeer[peer] = nil }
        }
    }

    /// The canvas of a request that reached this shard but belongs to another: a later request on a
    /// kept-alive connection (the acceptor routes only a connection's first). Nil when it is this shard's.
    func misrouted(_ canvas: String?) -> Bool {
        guard let shard, let canvas else { return false }
        return !shard.owns(canvas)
    }

    /// Where a misrouted HTTP request is sent again (307, on a new connection, which the acceptor routes by
    /// its path): the same path and query.
    static func location(path: String, arguments: [String]) -> String {
        guard !arguments.isEmpty else { return path }
        return path + "?" + arguments.map(percentEncoded).joined(separator: "&")
    }

    /// A decoded `key=value` argument encoded again for a URL: everything but unreserved characters and
    /// the first `=`.
    static func percentEncoded(_ argument: String) -> String {
        var out = ""
        var seenEquals = false
        for byte in argument.utf8 {
            let c = Character(UnicodeScalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || "-._~".contains(c) || (c == "=" && !seenEquals) {
                if c == "=" { seenEquals = true }
                out.append(c)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// Computes `part` on every shard's own thread and answers the request of socket `key` (waiting in
    /// `awaitingStore`) with what `answer` makes of the parts, in shard order, on this thread. A shard that
    /// has already stopped gives no part. A server alone computes its part at once.
    func gather<Part: Sendable>(awaiting key: Int, _ part: @escaping @Sendable (Server) -> Part,
                                answer: @escaping @Sendable (Server, [Part]) -> HTTPResponse) {
        let servers = group?.servers ?? [self]
        guard servers.count > 1 else {
            if let socket = awaitingStore.removeValue(forKey: key) { respond(socket, answer(self, [part(self)])) }
            return
        }
        let parts = Locked((reported: 0, values: [Part?](repeating: nil, count: servers.count)))
        let origin = self
        @Sendable func report(_ index: Int, _ value: Part?) {
            origin.context.perform {
                let all = parts.withLock { p -> [Part]? in
                    p.values[index] = value
                    p.reported += 1
                    return p.reported == p.values.count ? p.values.compactMap { $0 } : nil
                }
                guard let all, let socket = origin.awaitingStore.removeValue(forKey: key) else { return }
                origin.respond(socket, answer(origin, all))
            }
        }
        for (index, server) in servers.enumerated() {
            if !server.context.perform({ report(index, part(server)) }) { report(index, nil) }
        }
    }

    /// `gather` for a request that waits for nothing else.
    func gather<Part: Sendable>(_ socket: LWSSocket, _ part: @escaping @Sendable (Server) -> Part,
                                answer: @escaping @Sendable (Server, [Part]) -> HTTPResponse) -> Int32 {
        sockets[socket.key] = .http(nil)
        awaitingStore[socket.key] = socket
        gather(awaiting: socket.key, part, answer: answer)
        return 0
    }

    /// What `/healthz` says of one shard.
    struct Health: Sendable {
        var canvases: Int
        var connections: Int
        var draining: Bool
        var uptime: Double
        /// False while a cluster node's lease is not fresh.
        var leaseFresh = true
    }

    var health: Health {
        Health(canvases: registry.rooms.count, connections: connectionCount, draining: phase.isShuttingDown, uptime: now, leaseFresh: leaseIsFresh)
    }

    /// `/healthz` over the shards' parts: draining (503) once any shard is; `no_lease` (503) while a cluster
    /// node's lease is not fresh.
    static func healthResponse(_ parts: [Health]) -> HTTPResponse {
        let draining = parts.contains { $0.draining }
        let noLease = parts.contains { !$0.leaseFresh }
        var w = JSONWriter()
        w.beginObject()
        w.string("status", draining ? "draining" : noLease ? "no_lease" : "ok")
        w.number("canvases", parts.reduce(0) { $0 + $1.canvases })
        w.number("connections", parts.reduce(0) { $0 + $1.connections })
        w.number("uptime", parts.map(\.uptime).max() ?? 0)
        if parts.count > 1 { w.number("shards", parts.count) }
        w.endObject()
        // Draining fails the health check, so a proxy stops sending new clients here; so does a lease that
        // is not fresh (this node may not ack until it renews).
        return HTTPResponse(draining || noLease ? 503 : 200, "application/json", w.bytes)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
