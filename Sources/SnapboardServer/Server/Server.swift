import CLibWebSockets
import Foundation
import Logging
import SnapboardAuth
import SnapboardCore
import SnapboardLWS
import SnapboardProtocol
import SnapboardRoom
import SnapboardStore
import SnapboardLock

#if canImport(Glibc)
import Glibc
#endif

/// One shard of the Snapboard server (`Shards`): one libwebsockets context whose service thread owns
/// every socket, room and outbox of its canvases. Other threads talk to it only through hand-overs:
/// `requestShutdown()` is a `perform` on the context, the journal's thread posts `StorageEvent`s that the
/// service thread takes when woken, and a sharded server's acceptor hands it sockets to adopt. The store
/// is only ever called on the journal's thread, so blocking disk work never runs here.
///
/// `@unchecked Sendable` because of those hand-overs: everything else is touched only on the thread that
/// calls `run()`.
public final class Server: @unchecked Sendable {
    public private(set) var options: ServerOptions
    let logger: Logger
    let metrics = RoomMetrics()
    let startedAt = ContinuousClock.now
    let context: LWSContext
    /// The storage thread: loads, and writes with group commit, in the order they were asked for. The
    /// shards share it; `Shards` starts and stops it.
    let journal: Journal
    let storageEvents: StorageHandover
    /// Where this server sits among the shards; nil when it is the only one (and listens itself).
    let shard: ShardPlace?
    /// The process's servers, for what they share: set by `Shards` before `start()`.
    weak var group: Shards?
    let registry: RoomRegistry
    /// The browser client, read once at start.
    let web: WebAssets
    /// Per-socket state, by `LWSSocket.key`.
    var sockets: [Int: SocketState] = [:]
    private var nextConnection = 1
    private(set) var shuttingDownSince: Double?
    /// The shutdown has committed the gestures and asked every session to close.
    private var sessionsClosed = false
    private(set) var connectionsOpened = 0
    private(set) var connectionCount = 0
    /// The tick's length, stretched while the service thread is busy.
    private(set) var pacer: TickPacer
    /// The Origin and Host policy in force: the options', with loopback names only for a loopback server
    /// that lists no hosts.
    let origins: OriginPolicy
    /// Requests refused before they reached a canvas, by reason (`/metrics`).
    var refusals: [String: Int] = [:]
    /// When the tick last closed sessions whose token expired.
    private var lastExpiryCheck = 0.0
    /// When the tick last gave freed memory back, and how many canvases had been unloaded by then.
    private var lastTrim = (at: 0.0, unloads: 0)
    /// Each IP address with open WebSockets, and each session's address (an integer lookup on every op).
    var peers: [String: PeerState] = [:]
    var sessionPeers: [Int: PeerState] = [:]
    /// Open WebSockets by canvas, counted from the upgrade (before the canvas has loaded), for the limit.
    var canvasConnections: [String: Int] = [:]
    /// File descriptors the process may open, and the reserve kept free; set in `start()`.
    private(set) var descriptors = DescriptorBudget(limit: 1024)
    /// Bounds the connection events a peer can cause by connecting over and over.
    private var connectionLog = LogLimiter(burst: 200, interval: 1)
    /// Bounds the warnings about running out of descriptors, which a peer can cause.
    var descriptorLog = LogLimiter(burst: 1, interval: 10)
    /// HTTP requests whose body has been read, by socket key, until the next request on the connection.
    var bodiesCompleted: Set<Int> = []
    /// HTTP requests waiting for an answer from the journal's thread, by socket key.
    var awaitingStore: [Int: LWSSocket] = [:]
    /// Keeps closed sockets whose peer is still sending open a little, so the close frame is read
    /// before the kernel would answer the unread data with a reset.
    let lingerer = Lingerer()

    /// The port the server listens on, once `start()` returned.
    public private(set) var port = 0

    init(options: ServerOptions, journal: Journal, shard: ShardPlace?, logger: Logger) {
        self.options = options
        self.logger = logger
        self.journal = journal
        self.shard = shard
        pacer = TickPacer(minimum: options.tickMilliseconds, maximum: options.maxTickMilliseconds)
        var origins = options.origins
        if origins.allowedHosts.isEmpty, OriginPolicy.isLoopback(options.host) { origins.allowedHosts = OriginPolicy.loopbackHosts }
        self.origins = origins
        context = LWSContext(role: shard == nil ? .server(host: options.host, port: options.port) : .adopting, eventLoop: options.eventLoop)
        context.keepalive = (options.pingSeconds, options.idleTimeoutSeconds)
        context.handshakeTimeout = options.limits.handshakeSeconds
        context.tls = options.tls.map { .server(certificate: $0.certificate, privateKey: $0.privateKey) }
        storageEvents = StorageHandover(context: context)
        registry = RoomRegistry(journal: journal, canvasDefaults: options.canvas, roomConfig: options.room, metrics: metrics,
                                logger: logger, post: storageEvents.post)
        let webRoot = options.webRoot.map { URL(fileURLWithPath: $0) } ?? WebAssets.shippedDirectory
        web = WebAssets(directory: webRoot)
        if web.isEmpty {
            logger.warning("no browser client files in \(webRoot.path): / and /c/{canvas} answer 404 (see --web-root)")
        }
        context.handler = self
        registry.admitOp = { [unowned self] session, now in admitOp(from: session, now: now) }
    }

    /// Logs a connection's opening or closing at `info`, unless peers caused more than 200 such lines in the
    /// last second: then they are counted, and the next one written says how many were left out.
    private func logConnectionEvent(_ message: String, _ metadata: @autoclosure () -> Logger.Metadata) {
        guard logger.logLevel <= .info else { return }
        for line in connectionLog.admit(message, now: now) {
            if line == message { logger.info("\(message)", metadata: metadata()) } else { logger.notice("\(line)") }
        }
    }

    /// What libwebsockets logs at the server's level: its errors and warnings, its notices from `debug`, and
    /// its info lines from `trace`.
    static func libwebsocketsLogMask(_ level: Logger.Level) -> Int32 {
        switch level {
        case .trace: Int32(LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_INFO)
        case .debug: Int32(LLL_ERR | LLL_WARN | LLL_NOTICE)
        default: Int32(LLL_ERR | LLL_WARN)
        }
    }

    /// Seconds since the server started, on a monotonic clock: the rooms' notion of now.
    var now: Double {
        let d = ContinuousClock.now - startedAt
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Binds the listening socket. Call on the thread that will call `run()`.
    public func start() throws {
        let asked = options.eventLoop
        // Before the context: libwebsockets sizes its table of descriptors from the limit as it is then.
        descriptors = DescriptorBudget.raised()
        try context.open(logLevel: Self.libwebsocketsLogMask(logger.logLevel))
        if context.eventLoop != asked {
            // The libev plugin (libwebsockets-evlib-ev) is missing: poll() serves the same, at more CPU.
            logger.warning("cannot start libwebsockets on \(asked.rawValue); serving on poll")
            options.eventLoop = context.eventLoop
        }
        if shard == nil { port = context.listenPort }
        context.schedule(after: options.tickMilliseconds * 1000)
    }

    /// Serves until a shutdown completes, then lets queued writes finish before the process may exit.
    public func run() {
        context.run()
        lingerer.stop()
    }

    /// Asks the server to stop: safe from any thread, including a signal-handling one.
    public func requestShutdown() {
        context.perform { [self] in beginShutdown() }
    }

    /// The first step of a shutdown: `/healthz` fails and upgrades are refused from now on; the sessions
    /// close once `--drain-seconds` have passed (at once by default), in the tick.
    private func beginShutdown() {
        guard shuttingDownSince == nil else { return }
        shuttingDownSince = now
        if options.drainSeconds <= 0 { closeEverySession() }
    }

    /// Commits every gesture in progress while everyone is still there to be told, then closes every session.
    private func closeEverySession() {
        guard !sessionsClosed else { return }
        sessionsClosed = true
        registry.commitEverything(now: now)
        for case .websocket(let conn) in sockets.values {
            conn.outbox.requestClose(code: CloseCode.goingAway, reason: "server shutting down")
        }
    }

    // MARK: Sockets

    private func open(_ socket: LWSSocket, _ asked: CanvasAddress, _ claims: AccessClaims?, peer: String) -> Int32 {
        var address = asked
        var role = AccessRole(rawValue: asked.role) ?? .editor
        if let claims {
            // The token says who this is and what they may do; the query may only ask for less.
            role = claims.role.narrowed(to: role)
            address.name = DisplayName.clean(claims.name ?? "") ?? DisplayName.clean(claims.subject)
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
        // The room may queue to an outbox after its socket closed; the weak reference then finds nothing.
        conn.outbox.onReady = { [weak conn] in conn?.socket.requestWritable() }
        sockets[socket.key] = .websocket(conn)
        connectionsOpened += 1
        connectionCount += 1
        let peerState = peers[peer] ?? PeerState(opsPerSecond: options.limits.opsPerSecondPerIP, now: now)
        peers[peer] = peerState
        peerState.connections += 1
        sessionPeers[id] = peerState
        canvasConnections[address.canvas, default: 0] += 1
        registry.withRoom(address.canvas) { [unowned self, weak conn] room in
            guard let conn else { return }  // gone while the canvas loaded
            guard let room else {
                conn.outbox.requestClose(code: CloseCode.unavailable, reason: "canvas unavailable")
                return
            }
            room.join(session: id, address: address, user: claims?.subject, canEdit: role == .editor, outbox: conn.outbox, now: now)
            conn.joined = true
            for message in conn.backlog { handle(message, from: conn, in: room) }
            conn.backlog.removeAll()
        }
        return 0
    }

    private func receive(_ conn: Connection, _ input: UnsafeMutableRawPointer?, _ len: Int) {
        let message: Inbound
        switch conn.socket.receive(input, len, into: &conn.assembler) {
        case nil:
            return
        case .tooLarge?:
            message = .invalid(ProtocolError(.tooLarge, "messages are limited to \(options.maxMessageBytes) bytes"))
        case .message(_, binary: true)?:
            message = .invalid(ProtocolError(.binaryFrame, "the protocol is JSON in text frames"))
        case .message(let bytes, binary: false)?:
            message = .text(bytes)
        }
        if conn.joined, let room = registry.rooms[conn.canvas] {
            handle(message, from: conn, in: room)
        } else {
            conn.backlog.append(message)  // the canvas is still loading
        }
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

    /// One frame per writable callback: everything pending, as one message or a batch, or the next fragment
    /// of a message in parts. Then the close, if asked.
    private func flush(_ conn: Connection) -> Int32 {
        if conn.fragments == nil {
            switch conn.outbox.take(now: now) {
            case .whole(let frame)?:
                guard conn.socket.write(frame) else { return -1 }
                metrics.bytesSent += frame.count
                metrics.framesSent += 1
                if conn.outbox.hasPending { conn.socket.requestWritable() }
                return 0
            case .parts(let parts)?:
                conn.fragments = FragmentWriter(parts)
                metrics.bytesSent += parts.reduce(0) { $0 + $1.count }
            case nil:
                if let close = conn.outbox.close { return conn.socket.closeWhenFlushed(code: close.code, reason: close.reason) }
                return 0
            }
        } else {
            conn.outbox.drained(now: now)
        }
        guard conn.fragments!.writeNext(to: conn.socket) else { return -1 }
        metrics.framesSent += 1
        if conn.fragments!.isDone { conn.fragments = nil }
        if conn.fragments != nil || conn.outbox.hasPending { conn.socket.requestWritable() }
        return 0
    }

    /// A session lives no longer than its token: it is closed with 4001 once `exp` passes, and the client
    /// reconnects with a fresh token.
    private func closeExpiredSessions() {
        let wall = Date().timeIntervalSince1970
        for case .websocket(let conn) in sockets.values {
            guard let expires = conn.tokenExpires, expires <= wall, conn.outbox.close == nil else { continue }
            conn.outbox.requestClose(code: CloseCode.tokenExpired, reason: "token expired")
        }
    }

    private func closed(_ socket: LWSSocket) {
        guard case .websocket(let conn)? = sockets.removeValue(forKey: socket.key) else { return }
        connectionCount -= 1
        releaseConnection(peer: conn.peer)
        if let peerState = sessionPeers.removeValue(forKey: conn.id) {
            peerState.connections -= 1
            if peerState.connections == 0 { peers[conn.peer] = nil }
        }
        if let n = canvasConnections[conn.canvas], n > 1 { canvasConnections[conn.canvas] = n - 1 } else { canvasConnections[conn.canvas] = nil }
        registry.rooms[conn.canvas]?.leave(session: conn.id, now: now)
        // Who closed, with what: the server's own code, the peer's, or none when the connection just dropped.
        let code = conn.outbox.close?.code ?? conn.peerCloseCode
        logConnectionEvent("connection closed", [
            "canvas": "\(conn.canvas)", "session": "\(conn.id)", "client": "\(conn.client ?? "")", "remote": "\(conn.peer)",
            "code": "\(code.map(String.init) ?? "none")", "by": "\(conn.outbox.close != nil ? "server" : conn.peerClosed ? "client" : "network")",
            "seconds": "\(((now - conn.openedAt) * 1000).rounded() / 1000)",
        ])
    }

    // MARK: HTTP (requests are routed in Server+CanvasAPI.swift)

    func respondNow(_ socket: LWSSocket, _ response: HTTPResponse) -> Int32 {
        respond(socket, response)
        return 0
    }

    func respond(_ socket: LWSSocket, _ response: HTTPResponse) {
        sockets[socket.key] = .http(response)
        socket.requestWritable()
    }

    /// Headers in one writable callback, the body in the next: one write each.
    private func writeHTTP(_ socket: LWSSocket) -> Int32 {
        guard case .http(var response?)? = sockets[socket.key] else { return 0 }
        if !response.headersSent {
            guard socket.writeHeaders(status: response.status, contentType: response.contentType, length: response.body.count,
                                      extra: response.headers)
            else { return -1 }
            if response.body.count == 0 {
                sockets[socket.key] = nil
                return socket.completeTransaction() ? 0 : -1
            }
            response.headersSent = true
            sockets[socket.key] = .http(response)
            socket.requestWritable()
            return 0
        }
        sockets[socket.key] = nil
        return socket.writeBody(response.body) ? 0 : -1
    }
}

extension Server: LWSHandler {
    public func callback(_ socket: LWSSocket, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            // libwebsockets passes the accepted descriptor as the input pointer.
            return refuseIfOutOfDescriptors(Int32(truncatingIfNeeded: Int(bitPattern: input))) ? 1 : 0

        case LWS_CALLBACK_HTTP:
            bodiesCompleted.remove(socket.key)
            let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
            return request(socket, path: path, ifNoneMatch: socket.header(WSI_TOKEN_HTTP_IF_NONE_MATCH))

        case LWS_CALLBACK_HTTP_WRITEABLE:
            return writeHTTP(socket)

        case LWS_CALLBACK_HTTP_BODY:
            // A body is kept for the request waiting for it, else (a refused request's) read and dropped.
            if case .receiving(var request)? = sockets[socket.key], let input {
                sockets[socket.key] = .http(nil)  // no copy of the body while it grows
                request.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
                sockets[socket.key] = .receiving(request)
            }
            return 0

        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            // libwebsockets 4.1 calls this again, without end, for bytes that follow a body (a pipelined
            // request) until the answer is written, and never lets the answer be written meanwhile: a
            // second call for one request closes the connection instead.
            guard bodiesCompleted.insert(socket.key).inserted else { return -1 }
            switch sockets[socket.key] {
            case .receiving(let request)?:
                return serve(socket, request)
            case .http(_?)?:
                // libwebsockets writes nothing while a body is still arriving: the answer goes out now.
                socket.requestWritable()
                return 0
            default:
                return 0
            }

        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            guard shuttingDownSince == nil else {
                socket.refuse(status: Int(HTTP_STATUS_SERVICE_UNAVAILABLE.rawValue))
                return 1
            }
            switch CanvasAddress.route(path: socket.header(WSI_TOKEN_GET_URI) ?? "", decodedArguments: socket.decodedArguments) {
            case .canvas(let address) where misrouted(address.canvas):
                // Not this shard's canvas: only a connection's first request is routed, and this is a later one.
                countRefusal("misrouted")
                socket.refuse(status: 421, "this canvas is served on a new connection: reconnect")
                return 1
            case .canvas(let address):
                let peer = socket.peerAddress
                switch checkLimits(canvas: address.canvas) ?? admit(socket, canvas: address.canvas, queryToken: address.token, upgrade: true) {
                case .admitted(let claims):
                    if case .refused(let status, let reason, let message)? = reserveConnection(peer: peer) {
                        countRefusal(reason)
                        socket.refuse(status: status, message)
                        return 1
                    }
                    sockets[socket.key] = .upgrading(address, claims, peer: peer)
                    return 0
                case .refused(let status, let reason, let message):
                    countRefusal(reason)
                    socket.refuse(status: status, message)
                    return 1
                }
            case .badRequest(let why):
                socket.refuse(status: Int(HTTP_STATUS_BAD_REQUEST.rawValue), why)
                return 1
            case .notFound where options.conformanceEcho && socket.header(WSI_TOKEN_GET_URI) == "/":
                sockets[socket.key] = .echo(EchoConnection(socket: socket, maxMessageBytes: options.maxMessageBytes))
                return 0
            case .notFound:
                socket.refuse(status: Int(HTTP_STATUS_NOT_FOUND.rawValue))
                return 1
            }

        case LWS_CALLBACK_ESTABLISHED:
            if case .echo(let echo)? = sockets[socket.key] {
                echo.established = true
                return 0
            }
            guard case .upgrading(let address, let claims, let peer)? = sockets[socket.key] else { return -1 }
            return open(socket, address, claims, peer: peer)

        case LWS_CALLBACK_RECEIVE:
            switch sockets[socket.key] {
            case .websocket(let conn)?:
                receive(conn, input, len)
                return 0
            case .echo(let echo)?: return receiveEcho(echo, input, len)
            default: return -1
            }

        case LWS_CALLBACK_SERVER_WRITEABLE:
            switch sockets[socket.key] {
            case .websocket(let conn)?: return flush(conn)
            case .echo(let echo)?: return flushEcho(echo)
            default: return -1
            }

        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            switch sockets[socket.key] {
            case .websocket(let conn)?:
                conn.peerClosed = true
                conn.peerCloseCode = LWSSocket.peerClose(input, len)?.code
            case .echo(let echo)?: echo.peerClosed = true
            default: break
            }
            return 0  // libwebsockets answers the close and ends the connection

        case LWS_CALLBACK_CLOSED:
            switch sockets[socket.key] {
            // Unless the peer closed first, it has yet to read our close frame (ours, or libwebsockets' own
            // for bad UTF-8 or a dead peer) and to answer it: its answer must not meet a closed socket, whose
            // reset would throw away the close frame before the peer reads it.
            case .echo(let echo)?:
                lingerer.linger(socket.fd, always: !echo.peerClosed)
                sockets[socket.key] = nil
                return 0
            case .websocket(let conn)?:
                lingerer.linger(socket.fd, always: !conn.peerClosed)
            default:
                break
            }
            closed(socket)
            return 0

        case LWS_CALLBACK_CLOSED_HTTP:
            lingerer.linger(socket.fd)
            awaitingStore[socket.key] = nil
            bodiesCompleted.remove(socket.key)
            switch sockets[socket.key] {
            case .websocket?: return 0
            case .echo(let echo)? where echo.established: return 0
            case .upgrading(_, _, let peer)?:
                releaseConnection(peer: peer)  // the upgrade failed after its place was taken
                sockets[socket.key] = nil
            default: sockets[socket.key] = nil
            }
            return 0

        default:
            return lws_callback_http_dummy(socket.wsi, reason, nil, input, len)
        }
    }

    /// The tick: live deltas, lease expiry, idle unloading, and the end of a shutdown.
    public func timerFired() {
        let now = self.now
        registry.tick(now: now, idleSeconds: options.idleUnloadSeconds)
        if options.tokens != nil, now - lastExpiryCheck >= 1 {
            lastExpiryCheck = now
            closeExpiredSessions()
        }
        if registry.unloads > lastTrim.unloads, now - lastTrim.at >= 10 {
            // Unloaded canvases leave their memory free but scattered in glibc's heap, which keeps it: 12,000
            // connect-snap-leave cycles over 500 canvases grew RSS by 28 MB with 5 MB ever live at once. The
            // trim hands those pages back (3.8 ms after those cycles in a release build; once per 10 s at most).
            lastTrim = (now, registry.unloads)
            snapboard_malloc_trim()
        }
        if let since = shuttingDownSince {
            if now - since >= options.drainSeconds { closeEverySession() }
            if sessionsClosed, (connectionCount == 0 && journal.backlog == 0) || now - since > options.drainSeconds + options.shutdownGraceSeconds {
                context.stop()
                return
            }
        }
        context.schedule(after: pacer.next(wall: now, cpu: TickPacer.threadCPUSeconds()) * 1000)
    }

    /// Takes what the journal's thread handed over.
    public func woken() {
        let now = self.now
        for event in storageEvents.take() { registry.handle(event, now: now) }
    }
}

/// Storage events from the journal's thread for the service thread: queued under a lock, then the
/// context is woken and `Server.woken()` takes them.
final class StorageHandover: Sendable {
    private let queue = Locked<[StorageEvent]>([])
    private let context: LWSContext

    init(context: LWSContext) { self.context = context }

    @Sendable func post(_ event: StorageEvent) {
        queue.withLock { $0.append(event) }
        context.wake()
    }

    func take() -> [StorageEvent] {
        queue.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }
}
