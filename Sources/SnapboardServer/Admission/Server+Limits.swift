import CLibWebSockets
import SnapboardLWS
import SnapboardRoom

#if canImport(Glibc)
import Glibc
#endif

extension Server {
    /// Whether an upgrade to `canvas` fits this server's own limits (the canvas's sessions, the canvases in
    /// memory); the refusal when it does not. The process's connection limits are `reserveConnection`'s.
    func checkLimits(canvas: String) -> Admission? {
        let limits = options.limits
        if canvasConnections[canvas, default: 0] >= limits.connectionsPerCanvas {
            return .refused(status: 503, label: "canvas_connections", reason: nil, message: "this canvas is full")
        }
        if registry.rooms[canvas] == nil, registry.rooms.count + registry.loadingCount >= canvasLimit {
            return .refused(status: 503, label: "canvases", reason: nil, message: "too many canvases are open")
        }
        return nil
    }

    /// The per-address op budget (`--ops-per-second-per-ip`), `cost` tokens for the op (one per shape it
    /// names, `Room.cost(of:)`): nil lets session `session`'s op through.
    func admitOp(from session: Int, cost: Double, now: Double) -> String? {
        guard let peer = sessionPeers[session], !peer.ops.take(cost, now: now) else { return nil }
        countRefusal("ip_ops")
        return "more than \(Int(peer.ops.rate)) ops per second from this address"
    }

    /// A connection was just accepted onto `fd`. When it leaves fewer descriptors free than the reserve, it
    /// is answered `503` (plain HTTP only: a TLS client sees the close) and closed: returns true.
    func refuseIfOutOfDescriptors(_ fd: Int32) -> Bool {
        guard descriptors.exhausted(by: fd) else { return false }
        if options.tls == nil { Self.answerOutOfDescriptors(fd) }
        countRefusal("descriptors")
        for line in descriptorLog.admit("out of file descriptors (limit \(descriptors.limit)): new connections are answered 503", now: now) {
            logger.warning("\(line)")
        }
        return true
    }

    /// Writes a plain HTTP 503 for a connection refused for want of descriptors (it is closed next).
    static func answerOutOfDescriptors(_ fd: Int32) {
        let answer = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: application/json\r\n"
            + "Content-Length: 60\r\n\r\n{\"error\":\"unavailable\",\"message\":\"out of file descriptors\"}\n"
        _ = answer.withCString { send(fd, $0, strlen($0), Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }
}
