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

/// What a cluster node (a shared store, `Shards.shared`) does about who owns each canvas: before
/// libwebsockets reads a connection, the store says whether another node holds its canvas (nothing is
/// claimed then); once the request has passed its Host, Origin and token checks, another node's canvas
/// is answered 421 (upgrade) or 307 (HTTP) with where it lives, and rooms this node no longer owns are dropped, their sessions closed with 1012.
/// Service thread only, like the rest of `Server`.
extension Server {
    /// The canvas's owner elsewhere, as the ask on the way in found it, for the request on descriptor `fd`,
    /// with the arguments to send there (encoded, from the raw query): nil when this node may serve it.
    /// Taken once; an answer older than the handshake timeout is stale (the descriptor may have been reused).
    func takeMovedOwner(_ fd: Int32, decoded arguments: [String]) -> (owner: NodeIdentity, arguments: [String])? {
        guard let found = movedTo.removeValue(forKey: fd), now - found.at <= Double(options.limits.handshakeSeconds) else { return nil }
        return (found.owner, found.query.map(Self.encodedArguments(rawQuery:)) ?? arguments.map(Self.percentEncoded))
    }

    /// The arguments of a raw query (`a=1&b=x%0D%0A`), each name and value decoded and encoded again with
    /// everything but unreserved characters escaped, so that nothing of it is lost or read as a header.
    static func encodedArguments(rawQuery: String) -> [String] {
        rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { argument in
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = escaped(percentDecoded(parts[0]))
            return parts.count > 1 ? name + "=" + escaped(percentDecoded(parts[1])) : name
        }
    }

    /// The bytes of `raw` with each `%XX` decoded (a `%` not followed by two hex digits stays as it is).
    static func percentDecoded(_ raw: Substring) -> [UInt8] {
        let bytes = Array(raw.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count,
               let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) {
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `bytes` for a URL: unreserved characters (RFC 3986) as they are, every other byte as `%XX`.
    static func escaped(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Adopts a connection the acceptor took for `canvas`, once this node knows whether another node owns
    /// it: a canvas in memory is served at once; otherwise the store is asked, on the journal's thread, only
    /// who holds the canvas now (a live owner: fresh lease, session on the database). Nothing is claimed or
    /// loaded here: the request has not been read, let alone checked (Host, Origin, token, `--max-canvases`);
    /// a canvas with no owner elsewhere is claimed, if at all, by the normal path after those checks. Another
    /// node's canvas is recorded in `movedTo`, which the request finds once its checks pass (421 or 307).
    /// libwebsockets cannot hold an upgrade back while storage answers, so the answer has to be known
    /// before it reads the request.
    func adopt(_ fd: Int32, claiming canvas: String, query: String?) {
        guard registry.rooms[canvas] == nil, leaseIsFresh, !phase.isShuttingDown, let node = group?.shared?.node else {
            _ = context.adopt(fd)
            return
        }
        let context = self.context
        journal.read { [unowned self] store in
            // Who holds it, nothing more: a failed ask adopts as if nobody did (the normal path's claim decides).
            let owner = (try? (store as? SharedCanvasStore)?.owners([canvas]))?[canvas]
            let moved = owner.flatMap { $0.id == node.id ? nil : $0 }
            let handed = context.perform { [unowned self] in
                if let moved { movedTo[fd] = (moved, now, query) } else { movedTo[fd] = nil }
                _ = context.adopt(fd)
            }
            if !handed { close(fd) }  // the shard has stopped
        }
    }

    /// True while this node may serve and ack its canvases: the lease as this service thread last heard of
    /// it, and as the store's monotonic clock says now (a process paused past its lease learns it on waking,
    /// before the lease thread has said so).
    var leaseIsFresh: Bool { leaseFresh && (group?.shared?.leaseIsFresh ?? true) }

    /// Where a request for `path` (with its `arguments`, already encoded) is sent on `owner`.
    static func location(on owner: NodeIdentity, path: String, encoded arguments: [String]) -> String {
        owner.address + path + (arguments.isEmpty ? "" : "?" + arguments.joined(separator: "&"))
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

    /// An HTTP request about another node's canvas: 307 to the same path and query there (`arguments`
    /// decoded; `encoded` when they are already, from the raw query).
    static func redirect(to owner: NodeIdentity, path: String, arguments: [String] = [], encoded: [String]? = nil) -> HTTPResponse {
        let location = location(on: owner, path: path, encoded: encoded ?? arguments.map(percentEncoded))
        return HTTPResponse(307, "application/json", movedBody(owner: owner, location: location), headers: [("Location", location)])
    }

    /// Refuses an upgrade for another node's canvas: 421 with `Location` (the owner's address, the path and
    /// query) and a JSON body saying the same. Written in `HTTP_CONFIRM_UPGRADE`, as `LWSSocket.refuse` does.
    func refuseMoved(_ socket: LWSSocket, to owner: NodeIdentity, path: String, encoded arguments: [String]) {
        countRefusal("moved")
        let location = Self.location(on: owner, path: path, encoded: arguments)
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
