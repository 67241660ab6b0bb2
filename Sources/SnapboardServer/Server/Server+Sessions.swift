import CLibWebSockets
import Foundation
import SnapboardAuth
import SnapboardLWS
import SnapboardProtocol
import SnapboardRoom

#if canImport(Glibc)
import Glibc
#endif

/// WebSocket sessions: the upgrade, joining the room, receiving, sending and closing.
extension Server {
    /// `HTTP_CONFIRM_UPGRADE`: an upgrade is admitted (limits, Host, Origin, token) and its place taken, or
    /// refused with a status.
    func confirmUpgrade(_ socket: LWSSocket) -> Int32 {
        guard !phase.isShuttingDown else {
            socket.refuse(status: Int(HTTP_STATUS_SERVICE_UNAVAILABLE.rawValue))
            return 1
        }
        if let why = framingError(socket, method: "GET", upgrade: true) {
            countRefusal("framing")
            socket.refuse(status: 400, why, code: "bad_framing")
            return 1
        }
        let path = socket.header(WSI_TOKEN_GET_URI) ?? ""
        let moved = takeMovedOwner(socket.fd, decoded: socket.decodedArguments)
        switch CanvasAddress.route(path: path, decodedArguments: socket.decodedArguments) {
        case .canvas(let address) where misrouted(address.canvas):
            // Not this shard's canvas: only a connection's first request is routed, and this is a later one.
            countRefusal("misrouted")
            socket.refuse(status: 421, "this canvas is served on a new connection: reconnect")
            return 1
        case .canvas(let address):
            if let (owner, arguments) = moved {
                // Another node of the cluster owns it: the client asks there (`Server+Ownership.swift`), once
                // it has passed the same Host, Origin and token checks as here (a stranger learns nothing of
                // which canvases exist or where).
                if case .refused(let status, let label, let reason, let message) = admit(socket, canvas: address.canvas, queryToken: address.token, upgrade: true) {
                    countRefusal(label)
                    socket.refuse(status: status, message, reason: reason)
                    return 1
                }
                refuseMoved(socket, to: owner, path: path, encoded: arguments)
                return 1
            }
            guard leaseIsFresh else {
                countRefusal("no_lease")
                socket.refuse(status: 503, "this node has lost its lease on the database: try another", code: "no_lease")
                return 1
            }
            let peer = socket.peerAddress
            switch checkLimits(canvas: address.canvas) ?? admit(socket, canvas: address.canvas, queryToken: address.token, upgrade: true) {
            case .admitted(let claims):
                if case .refused(let status, let label, let reason, let message)? = reserveConnection(peer: peer) {
                    countRefusal(label)
                    socket.refuse(status: status, message, reason: reason)
                    return 1
                }
                sockets[socket.key] = .upgrading(address, claims, peer: peer)
                return 0
            case .refused(let status, let label, let reason, let message):
                countRefusal(label)
                socket.refuse(status: status, message, reason: reason)
                return 1
            }
        case .badRequest(let why):
            socket.refuse(status: Int(HTTP_STATUS_BAD_REQUEST.rawValue), why)
            return 1
        case .notFound:
            socket.refuse(status: Int(HTTP_STATUS_NOT_FOUND.rawValue))
            return 1
        }
    }

    /// `ESTABLISHED`: the upgrade completed; the session opens on its canvas.
    func established(_ socket: LWSSocket) -> Int32 {
        guard case .upgrading(let address, let claims, let peer)? = sockets[socket.key] else { return -1 }
        return open(socket, address, claims, peer: peer)
    }

    private func open(_ socket: LWSSocket, _ asked: CanvasAddress, _ claims: AccessClaims?, peer: String) -> Int32 {
        var address = asked
        var role = AccessRole(rawValue: asked.role) ?? .editor
        if let claims {
            // The token says who this is and what they may do; the query may only ask for less. A token
            // without a name (a shared link) shows the name the person gave, beside the token's `sub` as `user`.
            role = claims.role.narrowed(to: role)
            address.name = DisplayName.clean(claims.name ?? "") ?? address.name ?? DisplayName.clean(claims.subject)
        }
        let id = nextConnection
        nextConnection += 1
        if var size = options.sendBufferBytes.map(Int32.init) {
            setsockopt(socket.fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let conn = Connection(id: id, canvas: address.canvas, socket: socket, peer: peer, maxMessageBytes: options.maxMessageBytes)
        conn.tokenExpires = claims?.expires
        conn.client = address.client
        conn.openedAt = now
        logConnectionEvent("connection opened", [
            "canvas": "\(address.canvas)", "session": "\(id)", "client": "\(address.client ?? "")", "remote": "\(peer)",
            "role": "\(role.rawValue)", "user": "\(claims?.subject ?? "")",
        ])
        // The outbox names its connection by socket and id, not by a reference: a weak one would send every
        // retain of the connection through the runtime's slow path. Once the socket has closed, the name finds
        // nothing, even when libwebsockets reuses the socket's memory for another connection.
        conn.outbox.onReady = { [unowned self, key = socket.key] in outboxReady(key, id) }
        bound(conn)
        sockets[socket.key] = .websocket(conn)
        connectionsOpened += 1
        connectionCount += 1
        let peerState = peers[peer] ?? PeerState(opsPerSecond: options.limits.opsPerSecondPerIP, now: now)
        peers[peer] = peerState
        peerState.connections += 1
        sessionPeers[id] = peerState
        canvasConnections[address.canvas, default: 0] += 1
        // Creating a canvas is the right to edit: an editor's token, or anyone on an open server (where
        // `role=viewer` is the client's own choice, and the same client may join as an editor). A viewer's
        // token creates nothing: its join of a canvas that is not stored is closed with 4004.
        let mayCreate = claims.map { $0.role == .editor } ?? true
        registry.lookUp(address.canvas, creating: mayCreate) { [unowned self, key = socket.key] lookup in
            guard let conn = openConnection(key, id) else { return }  // gone while the canvas loaded
            let room: Room
            switch lookup {
            case .room(let found):
                room = found
            case .absent:
                conn.outbox.requestClose(code: CloseCode.canvasDeleted, reason: "no such canvas")
                return
            case .full:
                countRefusal("stored_canvases")
                conn.outbox.requestClose(code: CloseCode.storageFull, reason: "no new canvas: the server stores as many as it may")
                return
            case .unavailable:
                conn.outbox.requestClose(code: CloseCode.unavailable, reason: "canvas unavailable")
                return
            case .elsewhere:
                // Taken by another node since the claim on the way in: asked again, the client is sent there.
                conn.outbox.requestClose(code: CloseCode.canvasMoved, reason: "the canvas moved: reconnect")
                return
            }
            room.join(session: id, address: address, user: claims?.subject, canEdit: role == .editor, outbox: conn.outbox, now: now)
            conn.joined = true
            for message in conn.backlog { handle(message, from: conn, in: room) }
            conn.backlog.removeAll()
        }
        return 0
    }

    /// `RECEIVE`: a frame of a message; a whole message goes to the room, or waits while the canvas loads.
    func receive(_ socket: LWSSocket, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        guard case .websocket(let conn)? = sockets[socket.key] else { return -1 }
        // A session the server is closing is no longer listened to: what it sends costs nothing more.
        guard conn.outbox.close == nil, let message = assemble(conn, input, len) else { return 0 }
        // A cluster node's shutdown: its canvases are checkpointed and being given up; what comes now is
        // not acked here, and the client resends it to the next owner.
        if case .closing = phase { return 0 }
        if conn.joined, let room = registry.rooms[conn.canvas] {
            handle(message, from: conn, in: room)
        } else {
            hold(message, for: conn)  // the canvas is still loading
        }
        return 0
    }

    private func handle(_ inbound: Inbound, from conn: Connection, in room: Room) {
        switch inbound {
        case .invalid(let error):
            room.receiveInvalid(error, from: conn.id, now: now)
        case .text(let bytes):
            do {
                room.receive(try ClientMessage.decode(bytes), from: conn.id, now: now)
            } catch {
                room.receiveInvalid(error, from: conn.id, now: now)
            }
        }
    }

    /// `WS_PEER_INITIATED_CLOSE`: the peer's close frame, remembered for the log; libwebsockets answers it
    /// and ends the connection.
    func peerClosing(_ socket: LWSSocket, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        if case .websocket(let conn)? = sockets[socket.key] {
            conn.peerClosed = true
            conn.peerCloseCode = LWSSocket.peerClose(input, len)?.code
        }
        return 0
    }

    /// `CLOSED`: the session leaves its room and its counts.
    func closed(_ socket: LWSSocket) -> Int32 {
        guard case .websocket(let conn)? = sockets.removeValue(forKey: socket.key) else { return 0 }
        // Unless the peer closed first, it has yet to read our close frame (ours, or libwebsockets' own for
        // bad UTF-8 or a dead peer) and to answer it: its answer must not meet a closed socket, whose reset
        // would throw away the close frame before the peer reads it.
        lingerer.linger(socket.fd, always: !conn.peerClosed)
        connectionCount -= 1
        releaseConnection(peer: conn.peer)
        if let peerState = sessionPeers.removeValue(forKey: conn.id) {
            peerState.connections -= 1
            if peerState.connections == 0 { peers[conn.peer] = nil }
        }
        if let n = canvasConnections[conn.canvas], n > 1 { canvasConnections[conn.canvas] = n - 1 } else { canvasConnections[conn.canvas] = nil }
        registry.rooms[conn.canvas]?.leave(session: conn.id, now: now)
        release(conn)
        // Who closed, with what: the server's own code, the peer's, or none when the connection just dropped.
        let code = conn.outbox.close?.code ?? conn.peerCloseCode
        logConnectionEvent("connection closed", [
            "canvas": "\(conn.canvas)", "session": "\(conn.id)", "client": "\(conn.client ?? "")", "remote": "\(conn.peer)",
            "code": "\(code.map(String.init) ?? "none")", "by": "\(conn.outbox.close != nil ? "server" : conn.peerClosed ? "client" : "network")",
            "seconds": "\(((now - conn.openedAt) * 1000).rounded() / 1000)",
        ])
        return 0
    }
}
