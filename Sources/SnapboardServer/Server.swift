import CLibWebSockets
import Dispatch
import SnapboardCore
import SnapboardProtocol
import SnapboardRoom
import SnapboardStore
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The Snapboard server: one libwebsockets context whose service thread owns every socket, room and
/// outbox. Other threads talk to it only through hand-overs: `requestShutdown()` sets a flag, and the
/// storage queue posts completions to `inbox`; both then call `lws_cancel_service()`, and the service
/// thread picks the work up in `LWS_CALLBACK_EVENT_WAIT_CANCELLED`. The store is only ever called on the
/// storage queue, so blocking disk work never runs on the service thread.
///
/// `@unchecked Sendable` because of those hand-overs: everything else is touched only on the thread that
/// calls `run()`.
public final class Server: @unchecked Sendable {
    public private(set) var options: ServerOptions
    let logger: Logger
    let store: CanvasStore
    let metrics = RoomMetrics()
    let startedAt = ContinuousClock.now
    private var context: OpaquePointer?
    private let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
    private let timer = UnsafeMutablePointer<snapboard_timer>.allocate(capacity: 1)
    private var rooms: [String: Room] = [:]
    private var connections: [Int: Connection] = [:]
    /// Sockets by their `lws *`, as an integer: the only place a raw handle is kept, on the service thread.
    private var wsiOf: [Int: OpaquePointer] = [:]
    private var connectionOf: [Int: Int] = [:]
    /// Upgrades accepted in CONFIRM_UPGRADE, waiting for ESTABLISHED.
    private var pendingUpgrades: [Int: CanvasAddress] = [:]
    /// HTTP responses waiting for their writable callbacks, by socket.
    private var httpResponses: [Int: HTTPResponse] = [:]
    /// HTTP requests waiting for a canvas to load, by socket.
    private var httpWaiting: [Int: OpaquePointer] = [:]
    private var nextConnection = 1
    private let shutdownRequested = Atomic<Bool>(false)
    /// The storage thread: loads, and writes with group commit, in the order they were asked for.
    let journal: Journal
    /// Work posted from the journal's thread for the service thread.
    private let inbox = Mutex<[@Sendable (Server) -> Void]>([])
    /// Connections waiting for their canvas to load, by canvas.
    /// What waits for each canvas being loaded.
    private var loading: [String: [(Room?) -> Void]] = [:]
    private var shuttingDownSince: Double?
    private var finished = false
    var connectionsOpened = 0

    /// The port the server listens on, once `start()` returned.
    public private(set) var port = 0

    public init(options: ServerOptions, store: CanvasStore = MemoryCanvasStore(), logger: Logger = Logger(label: "snapboard")) {
        self.options = options
        self.logger = logger
        self.journal = Journal(store: store)
        // libwebsockets expects a zeroed timer (its list links) before the first lws_sul_schedule().
        timer.initialize(to: snapboard_timer())
        self.store = store
    }

    deinit {
        protocols.deallocate()
        timer.deallocate()
    }

    /// Seconds since the server started, on a monotonic clock: the rooms' notion of now.
    var now: Double {
        let d = ContinuousClock.now - startedAt
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Binds the listening socket. Call on the thread that will call `run()`.
    public func start() throws {
        guard Int(snapboard_lws_pre) <= ServerMessage.headroom else {
            throw ServerError(message: "libwebsockets needs \(snapboard_lws_pre) bytes of headroom; messages reserve \(ServerMessage.headroom)")
        }
        lws_set_log_level(Int32(LLL_ERR | LLL_WARN), nil)
        let me = Unmanaged.passUnretained(self).toOpaque()
        var loop = options.eventLoop.code
        context = options.host.withCString { host in
            snapboard_create_context(protocols, serverCallback, me, host, Int32(options.port), 0, 1, &loop)
        }
        if loop != options.eventLoop.code {
            // The libev plugin (libwebsockets-evlib-ev) is missing: poll() serves the same, at more CPU.
            logger.warning("cannot start libwebsockets on \(options.eventLoop.rawValue); serving on poll")
            options.eventLoop = .poll
        }
        guard let context else { throw ServerError(message: "cannot listen on \(options.host):\(options.port)") }
        port = Int(snapboard_listen_port(context))
        timer.pointee.owner = me
        connectJournal()
        scheduleTick()
    }

    /// Serves until a shutdown completes, then frees the context.
    public func run() {
        while !finished, lws_service(context, 0) >= 0 {}
        // Writes still queued finish before the process may exit.
        journal.sync()
        lws_context_destroy(context)
        context = nil
    }

    /// Asks the server to stop: safe from any thread, including a signal-handling one.
    public func requestShutdown() {
        shutdownRequested.store(true, ordering: .sequentiallyConsistent)
        if let context { lws_cancel_service(context) }
    }

    // MARK: Ticks

    private func scheduleTick() {
        lws_sul_schedule(context, 0, &timer.pointee.sul, tickCallback, lws_usec_t(options.tickMilliseconds) * 1000)
    }

    fileprivate func tick() {
        let now = self.now
        for room in rooms.values { room.tick(now: now) }
        unloadIdleRooms(now: now)
        if let since = shuttingDownSince, (connections.isEmpty && journal.backlog == 0) || now - since > options.shutdownGraceSeconds {
            finished = true
            lws_cancel_service(context)
            // An event library's loop runs inside lws_service() until the context starts to be destroyed;
            // run() completes the destruction once it returns, as libwebsockets' eventlib examples do.
            if options.eventLoop != .poll { lws_context_destroy(context) }
            return
        }
        scheduleTick()
    }

    private func unloadIdleRooms(now: Double) {
        for (id, room) in rooms where room.sessionCount == 0 {
            guard let since = room.emptySince, now - since >= options.idleUnloadSeconds else { continue }
            // The journal is serial, so a load asked for after this checkpoint reads what it wrote.
            room.checkpoint()
            rooms[id] = nil
        }
    }

    // MARK: Storage hand-over

    /// Runs `work` on the service thread: the way the journal's thread hands results back.
    private func post(_ work: @escaping @Sendable (Server) -> Void) {
        inbox.withLock { $0.append(work) }
        if let context { lws_cancel_service(context) }
    }

    private func connectJournal() {
        journal.onDurable = { [unowned self] durable in
            post { server in
                for (canvas, seq) in durable { server.rooms[canvas]?.durable(through: seq, now: server.now) }
            }
        }
        journal.onFailure = { [unowned self] canvases, error in
            post { server in
                for canvas in canvases.sorted() { server.recover(canvas, after: error) }
            }
        }
        journal.start()
    }

    /// Makes sure canvas `id` is loaded; `ready` runs on the service thread once it is (at once if it is).
    private func withRoom(_ id: String, _ ready: @escaping (Room?) -> Void) {
        if let room = rooms[id] { return ready(room) }
        let first = loading[id] == nil
        loading[id, default: []].append(ready)
        guard first else { return }
        journal.load(id) { [unowned self] result in
            post { server in server.finishLoading(id, result) }
        }
    }

    private func finishLoading(_ id: String, _ result: Result<StoredCanvas, Error>) {
        let waiting = loading.removeValue(forKey: id) ?? []
        do {
            let stored = try result.get()
            let room = try rooms[id] ?? makeRoom(id, from: stored)
            rooms[id] = room
            for ready in waiting { ready(room) }
        } catch {
            logger.error("cannot load canvas", metadata: ["canvas": "\(id)", "error": "\(error)"])
            for ready in waiting { ready(nil) }
        }
    }

    private func makeRoom(_ id: String, from stored: StoredCanvas) throws -> Room {
        let canvas = try stored.snapshot.map { try Canvas(snapshot: $0) } ?? Canvas(id: id, config: options.canvas)
        let room = Room(canvas: canvas, history: stored.log, config: options.room, metrics: metrics, now: now)
        let journal = self.journal
        room.journal = { journal.append($0) }
        return room
    }

    /// A write for `canvas` failed: refuse its ops until it is reloaded from what is durable, then roll
    /// the room back to that (the room rejects the ops it could not save with `unavailable`).
    private func recover(_ canvas: String, after error: Error) {
        guard let room = rooms[canvas], !room.isRecovering else { return }
        logger.error("a write failed; rolling the canvas back to its durable state", metadata: ["canvas": "\(canvas)", "error": "\(error)"])
        room.isRecovering = true
        journal.load(canvas, recovering: true) { [unowned self] result in
            post { server in
                guard let room = server.rooms[canvas] else { return }
                switch result {
                case .success(let stored):
                    do {
                        let restored = try stored.snapshot.map { try Canvas(snapshot: $0) } ?? Canvas(id: canvas, config: server.options.canvas)
                        room.storageFailed(restoring: restored, history: stored.log, now: server.now)
                    } catch {
                        server.logger.error("cannot restore canvas", metadata: ["canvas": "\(canvas)", "error": "\(error)"])
                    }
                case .failure(let error):
                    // Not even readable: try again on the next failure report; the room keeps refusing ops.
                    server.logger.error("cannot reload canvas", metadata: ["canvas": "\(canvas)", "error": "\(error)"])
                    room.isRecovering = false
                }
            }
        }
    }

    // MARK: Shutdown

    private func beginShutdown() {
        guard shuttingDownSince == nil else { return }
        shuttingDownSince = now
        // Commit every gesture in progress while everyone is still there to be told, then close.
        for room in rooms.values { room.commitAllGestures(now: now) }
        for conn in connections.values {
            conn.outbox.requestClose(code: CloseCode.goingAway, reason: "server shutting down")
        }
        for room in rooms.values { room.checkpoint() }
    }

    // MARK: The libwebsockets callback

    fileprivate func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        let key = Int(bitPattern: UnsafeRawPointer(wsi))
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            for work in inbox.withLock({ box in defer { box.removeAll() }; return box }) { work(self) }
            if shutdownRequested.load(ordering: .sequentiallyConsistent) { beginShutdown() }
            return 0

        case LWS_CALLBACK_HTTP:
            let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
            return respond(wsi, key, to: path)

        case LWS_CALLBACK_HTTP_WRITEABLE:
            switch httpResponses.removeValue(forKey: key) {
            case .headers(let status, let type, let body)?:
                guard writeHeaders(wsi, status, type, length: body.count) else { return -1 }
                httpResponses[key] = .body(body)
                lws_callback_on_writable(wsi)
                return 0
            case .body(let body)?:
                let sent = write(wsi, body, LWS_WRITE_HTTP_FINAL)
                return sent && lws_http_transaction_completed(wsi) == 0 ? 0 : -1
            case nil:
                return 0
            }

        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            guard shuttingDownSince == nil else {
                _ = lws_return_http_status(wsi, UInt32(HTTP_STATUS_SERVICE_UNAVAILABLE.rawValue), nil)
                return 1
            }
            switch CanvasAddress.route(path: header(wsi, WSI_TOKEN_GET_URI) ?? "", query: query(wsi)) {
            case .canvas(let address):
                pendingUpgrades[key] = address
                return 0
            case .badRequest(let why):
                _ = why.withCString { lws_return_http_status(wsi, UInt32(HTTP_STATUS_BAD_REQUEST.rawValue), $0) }
                return 1
            case .notFound:
                _ = lws_return_http_status(wsi, UInt32(HTTP_STATUS_NOT_FOUND.rawValue), nil)
                return 1
            }

        case LWS_CALLBACK_ESTABLISHED:
            guard let address = pendingUpgrades.removeValue(forKey: key) else { return -1 }
            return open(wsi, key, address)

        case LWS_CALLBACK_RECEIVE:
            guard let id = connectionOf[key], let conn = connections[id] else { return -1 }
            receive(conn, wsi, input, len)
            return 0

        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let id = connectionOf[key], let conn = connections[id] else { return -1 }
            return flush(conn, wsi)

        case LWS_CALLBACK_CLOSED:
            pendingUpgrades[key] = nil
            guard let id = connectionOf.removeValue(forKey: key), let conn = connections.removeValue(forKey: id) else { return 0 }
            wsiOf[id] = nil
            rooms[conn.canvas]?.leave(session: id, now: now)
            return 0

        case LWS_CALLBACK_CLOSED_HTTP:
            httpResponses[key] = nil
            httpWaiting[key] = nil
            pendingUpgrades[key] = nil
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, nil, input, len)
        }
    }

    private func open(_ wsi: OpaquePointer, _ key: Int, _ address: CanvasAddress) -> Int32 {
        let id = nextConnection
        nextConnection += 1
        if var size = options.sendBufferBytes.map(Int32.init) {
            setsockopt(lws_get_socket_fd(wsi), SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let conn = Connection(id: id, canvas: address.canvas)
        conn.outbox.onReady = { [unowned self] in
            if let wsi = self.wsiOf[id] { lws_callback_on_writable(wsi) }
        }
        connections[id] = conn
        connectionOf[key] = id
        wsiOf[id] = wsi
        connectionsOpened += 1
        withRoom(address.canvas) { [unowned self] room in
            guard let conn = connections[id] else { return }  // gone while the canvas loaded
            guard let room else {
                conn.outbox.requestClose(code: CloseCode.unavailable, reason: "canvas unavailable")
                return
            }
            room.join(session: id, address: address, canEdit: address.role != "viewer", outbox: conn.outbox, now: now)
            conn.joined = true
            for message in conn.backlog { handle(message, from: conn, in: room) }
            conn.backlog.removeAll()
        }
        return 0
    }

    private func receive(_ conn: Connection, _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ len: Int) {
        let first = lws_is_first_fragment(wsi) != 0, last = lws_is_final_fragment(wsi) != 0
        if first {
            conn.rx.removeAll(keepingCapacity: true)
            conn.discarding = false
            conn.rxBinary = lws_frame_is_binary(wsi) != 0
        }
        if !conn.discarding, let input {
            if conn.rx.count + len > options.maxMessageBytes {
                conn.discarding = true
                conn.rx.removeAll()
                let tooLarge = ProtocolError(.tooLarge, "messages are limited to \(options.maxMessageBytes) bytes")
                if conn.joined, let room = rooms[conn.canvas] { handle(.invalid(tooLarge), from: conn, in: room) } else { conn.backlog.append(.invalid(tooLarge)) }
            } else {
                conn.rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
            }
        }
        guard last, !conn.discarding else { return }
        let message: Inbound = conn.rxBinary ? .invalid(ProtocolError(.binaryFrame, "the protocol is JSON in text frames")) : .text(conn.rx)
        conn.rx.removeAll(keepingCapacity: true)
        if conn.joined, let room = rooms[conn.canvas] {
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
                let message = try ClientMessage.decode(bytes)
                room.receive(message, from: conn.id, now: now)
            } catch {
                room.receiveInvalid(error, from: conn.id, now: now)
            }
        }
    }

    /// One frame per writable callback: everything pending, as one message or a batch. Then the close, if asked.
    private func flush(_ conn: Connection, _ wsi: OpaquePointer) -> Int32 {
        if let frame = conn.outbox.takeFrame(now: now) {
            guard writeMessage(wsi, frame) else { return -1 }
            metrics.bytesSent += frame.count
            metrics.framesSent += 1
            if conn.outbox.hasPending { lws_callback_on_writable(wsi) }
            return 0
        }
        if let close = conn.outbox.close {
            var reason = Array(close.reason.utf8.prefix(120))
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(close.code)), &reason, reason.count)
            return -1
        }
        return 0
    }

    /// Writes a serialised message in place: its first `ServerMessage.headroom` bytes are the LWS_PRE room
    /// libwebsockets writes the frame header into. The same bytes may be queued for other clients; lws
    /// touches only the headroom, never the JSON after it, and only this thread writes, so sharing is safe.
    private func writeMessage(_ wsi: OpaquePointer, _ message: [UInt8]) -> Bool {
        let pre = ServerMessage.headroom
        let n = message.withUnsafeBufferPointer { buf in
            lws_write(wsi, UnsafeMutablePointer(mutating: buf.baseAddress! + pre), buf.count - pre, LWS_WRITE_TEXT)
        }
        return n >= message.count - pre
    }

    /// Writes `payload` (an HTTP body) with the LWS_PRE headroom libwebsockets needs in front of it.
    private func write(_ wsi: OpaquePointer, _ payload: [UInt8], _ mode: lws_write_protocol) -> Bool {
        let pre = Int(snapboard_lws_pre)
        var buffer = [UInt8](repeating: 0, count: pre + payload.count)
        buffer.replaceSubrange(pre..<(pre + payload.count), with: payload)
        let n = buffer.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + pre, payload.count, mode) }
        return n >= payload.count
    }

    // MARK: HTTP

    /// Answers an HTTP request. Headers and body are written in two writable callbacks, one lws_write each;
    /// a canvas that is not loaded is loaded first, on the storage queue.
    private func respond(_ wsi: OpaquePointer, _ key: Int, to path: String) -> Int32 {
        if case .canvas(let address) = CanvasAddress.route(path: path, query: nil), rooms[address.canvas] == nil {
            httpWaiting[key] = wsi
            withRoom(address.canvas) { [unowned self] room in
                guard let wsi = httpWaiting.removeValue(forKey: key) else { return }  // the client left
                httpResponses[key] = room.map { .headers(200, "application/json", $0.snapshotJSON) }
                    ?? .headers(503, "application/json", Array(#"{"error":"unavailable"}"#.utf8))
                lws_callback_on_writable(wsi)
            }
            return 0
        }
        let (status, type, body) = httpResponse(path: path)
        httpResponses[key] = .headers(status, type, body)
        lws_callback_on_writable(wsi)
        return 0
    }

    private func writeHeaders(_ wsi: OpaquePointer, _ status: Int, _ type: String, length: Int) -> Bool {
        var headers = [UInt8](repeating: 0, count: Int(snapboard_lws_pre) + 1024)
        return headers.withUnsafeMutableBufferPointer { buf -> Bool in
            let start = buf.baseAddress! + Int(snapboard_lws_pre)
            var p: UnsafeMutablePointer<UInt8>? = start
            let end = buf.baseAddress! + buf.count - 1
            guard type.withCString({ lws_add_http_common_headers(wsi, UInt32(status), $0, lws_filepos_t(length), &p, end) }) == 0
            else { return false }
            return lws_finalize_write_http_header(wsi, start, &p, end) == 0
        }
    }

    private func httpResponse(path: String) -> (Int, String, [UInt8]) {
        switch path {
        case "/healthz":
            var w = JSONWriter()
            w.beginObject()
            w.string("status", shuttingDownSince == nil ? "ok" : "shutting_down")
            w.number("canvases", rooms.count)
            w.number("connections", connections.count)
            w.number("uptime", now)
            w.endObject()
            return (200, "application/json", w.bytes)
        case "/metrics":
            return (200, "text/plain; version=0.0.4", Array(prometheusText().utf8))
        default:
            switch CanvasAddress.route(path: path, query: nil) {
            case .canvas(let address):
                // `respond` loads a canvas that is not in memory before it gets here.
                guard let room = rooms[address.canvas] else { return (503, "application/json", Array(#"{"error":"unavailable"}"#.utf8)) }
                return (200, "application/json", room.snapshotJSON)
            case .badRequest(let why):
                var w = JSONWriter()
                w.beginObject()
                w.string("error", "bad_request")
                w.string("message", why)
                w.endObject()
                return (400, "application/json", w.bytes)
            case .notFound:
                return (404, "application/json", Array(#"{"error":"not_found"}"#.utf8))
            }
        }
    }

    private func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0, length < 8192 else { return nil }
        var buf = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buf, Int32(buf.count), token) >= 0 else { return nil }
        return Self.string(buf)
    }

    /// A NUL-terminated C string that libwebsockets copied into `buffer`.
    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The query string, from libwebsockets' already-split argument fragments.
    private func query(_ wsi: OpaquePointer) -> String? {
        var parts: [String] = []
        var buf = [CChar](repeating: 0, count: 1024)
        var i: Int32 = 0
        while lws_hdr_copy_fragment(wsi, &buf, Int32(buf.count), WSI_TOKEN_HTTP_URI_ARGS, i) > 0 {
            parts.append(Self.string(buf))
            i += 1
        }
        return parts.isEmpty ? nil : parts.joined(separator: "&")
    }

    // MARK: Metrics

    var queueDepthBytes: Int { connections.values.reduce(0) { $0 + $1.outbox.queuedBytes } }
    var roomCount: Int { rooms.count }
    var connectionCount: Int { connections.count }
}

/// The server could not start.
public struct ServerError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}

private func serverCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let me = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, len)
    }
    return Unmanaged<Server>.fromOpaque(me).takeUnretainedValue().handle(wsi, reason, input, len)
}

private func tickCallback(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    guard let sul else { return }
    let timer = UnsafeMutableRawPointer(sul).assumingMemoryBound(to: snapboard_timer.self)
    guard let owner = timer.pointee.owner else { return }
    Unmanaged<Server>.fromOpaque(owner).takeUnretainedValue().tick()
}
