import CLibWebSockets
import SnapboardLWS
import SnapboardProtocol
import SnapboardStore

#if canImport(Glibc)
import Glibc
#endif

extension CloseCode {
    /// 1012 (Service Restart): this node no longer owns the canvas (another node took it, or this node's
    /// lease lapsed). The client reconnects, is sent to the owner, and resends what was not acked.
    static let canvasMoved: UInt16 = 1012
}

/// What a cluster node (a shared store, `Shards.shared`) does about who owns each canvas: connections are
/// claimed before libwebsockets reads them, another node's canvas is answered 421 (upgrade) or 307 (HTTP)
/// with where it lives, and rooms this node no longer owns are dropped, their sessions closed with 1012.
/// Service thread only, like the rest of `Server`.
extension Server {
    /// The canvas's owner, as a claim found it on the way in, for the request on descriptor `fd`: nil when
    /// this node may serve it. Taken once; a claim older than the handshake timeout is stale (the descriptor
    /// may have been reused).
    func takeMovedOwner(_ fd: Int32) -> NodeIdentity? {
        guard let found = movedTo.removeValue(forKey: fd), now - found.at <= Double(options.limits.handshakeSeconds) else { return nil }
        return found.owner
    }

    /// Adopts a connection the acceptor took for `canvas`, once this node has tried to claim the canvas: a
    /// canvas in memory is served at once; otherwise the claim (a load, on the journal's thread) says
    /// whether another node owns it, which the request then finds in `movedTo`. libwebsockets cannot hold
    /// an upgrade back while storage answers, so the answer has to be known before it reads the request.
    func adopt(_ fd: Int32, claiming canvas: String) {
        guard registry.rooms[canvas] == nil, leaseIsFresh, !phase.isShuttingDown else {
            _ = context.adopt(fd)
            return
        }
        registry.lookUp(canvas, creating: false) { [unowned self] lookup in
            if case .elsewhere(let owner) = lookup { movedTo[fd] = (owner, now) } else { movedTo[fd] = nil }
            _ = context.adopt(fd)
        }
    }

    /// True while this node may serve and ack its canvases: the lease as this service thread last heard of
    /// it, and as the store's monotonic clock says now (a process paused past its lease learns it on waking,
    /// before the lease thread has said so).
    var leaseIsFresh: Bool { leaseFresh && (group?.shared?.leaseIsFresh ?? true) }

    /// Where a request for `path` (with its decoded `arguments`) is sent on `owner`.
    static func location(on owner: NodeIdentity, path: String, arguments: [String]) -> String {
        owner.address + location(path: path, arguments: arguments)
    }

    /// The body of a 421 or 307 that sends a client to the canvas's owner.
    static func movedBody(owner: NodeIdentity, location: String) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.string("error", "moved")
        w.string("owner", owner.id)
        w.string("location", location)
        w.string("message", "this canvas is served by node \(owner.id): ask there")
        w.endObject()
        return w.bytes
    }

    /// An HTTP request about another node's canvas: 307 to the same path and query there.
    static func redirect(to owner: NodeIdentity, path: String, arguments: [String]) -> HTTPResponse {
        let location = location(on: owner, path: path, arguments: arguments)
        return HTTPResponse(307, "application/json", movedBody(owner: owner, location: location), headers: [("Location", location)])
    }

    /// Refuses an upgrade for another node's canvas: 421 with `Location` (the owner's address, the path and
    /// query) and a JSON body saying the same. Written in `HTTP_CONFIRM_UPGRADE`, as `LWSSocket.refuse` does.
    func refuseMoved(_ socket: LWSSocket, to owner: NodeIdentity, path: String) {
        countRefusal("moved")
        let location = Self.location(on: owner, path: path, arguments: socket.decodedArguments)
        let body = Self.movedBody(owner: owner, location: location)
        let head = "\(LWSSocket.statusLine(421))\r\ncontent-type: application/json\r\ncontent-length: \(body.count)\r\n"
            + "location: \(location)\r\nconnection: close\r\n\r\n"
        let response = Frame(payload: Array(head.utf8) + body)
        _ = response.withUnsafeMutablePayload { start, count in lws_write(socket.wsi, start, count, LWS_WRITE_HTTP) }
    }

    /// The lease changed (the store's lease thread said so). Not fresh: this node may not ack, so every room
    /// is dropped and its sessions closed with 1012; new sessions get 503 and `/healthz` 503 `no_lease`
    /// until it is fresh again.
    func leaseChanged(fresh: Bool) {
        guard fresh != leaseFresh else { return }
        leaseFresh = fresh
        registry.mayOwn = fresh
        if fresh {
            logger.notice("lease fresh again: serving canvases")
        } else {
            leaseLapses += 1
            logger.error("lease not fresh: this node may not ack; dropping every canvas until it renews", metadata: ["canvases": "\(registry.rooms.count)"])
            // Once a drain has closed its sessions (with 1001) and left the cluster, the lease ends by design:
            // the rooms stay, so the acks of what was written before still reach their clients.
            if case .closing = phase { return }
            registry.dropEverything(because: "the lease is not fresh")
        }
    }

    /// Closes the sessions of a room dropped because this node no longer owns its canvas.
    func roomDropped(_ canvas: String) {
        closeSessions(of: canvas, code: CloseCode.canvasMoved, reason: "the canvas moved: reconnect")
    }
}
