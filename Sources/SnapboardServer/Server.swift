import CLibWebSockets
import SnapboardCore
import SnapboardProtocol
import SnapboardRoom
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The Snapboard server: one libwebsockets context whose service thread owns every socket, room and
/// outbox. Other threads talk to it only through `requestShutdown()`, which hands over through a flag
/// plus `lws_cancel_service()`.
///
/// `@unchecked Sendable` because of that hand-over: everything else is touched only on the thread that
/// calls `run()`.
public final class Server: @unchecked Sendable {
    public let options: ServerOptions
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
    private var httpBodies: [Int: HTTPBody] = [:]
    private var nextConnection = 1
    private let shutdownRequested = Atomic<Bool>(false)
    private var shuttingDownSince: Double?
    private var finished = false
    var ackLatency = LatencyHistogram()
    var connectionsOpened = 0

    /// The port the server listens on, once `start()` returned.
    public private(set) var port = 0

    public init(options: ServerOptions, store: CanvasStore = MemoryCanvasStore(), logger: Logger = Logger(label: "snapboard")) {
        self.options = options
        self.logger = logger
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
        context = options.host.withCString { host in
            snapboard_create_context(protocols, serverCallback, me, host, Int32(options.port), 0, 1)
        }
        guard let context else { throw ServerError(message: "cannot listen on \(options.host):\(options.port)") }
        port = Int(snapboard_listen_port(context))
        timer.pointee.owner = me
        scheduleTick()
    }

    /// Serves until a shutdown completes, then frees the context.
    public func run() {
        while !finished, lws_service(context, 0) >= 0 {}
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
        if let since = shuttingDownSince, connections.isEmpty || now - since > options.shutdownGraceSeconds {
            finished = true
            lws_cancel_service(context)
            return
        }
        scheduleTick()
    }

    private func unloadIdleRooms(now: Double) {
        for (id, room) in rooms where room.sessionCount == 0 {
            guard let since = room.emptySince, now - since >= options.idleUnloadSeconds else { continue }
            do {
                try store.save(room.canvas.committedSnapshot)
                rooms[id] = nil
            } catch {
                logger.error("cannot save canvas on unload", metadata: ["canvas": "\(id)", "error": "\(error)"])
            }
        }
    }

    /// Loads a canvas into a room, from the store or new.
    private func room(for id: String) throws -> Room {
        if let room = rooms[id] { return room }
        let canvas = try store.load(id).map { try Canvas(snapshot: $0) } ?? Canvas(id: id, config: options.canvas)
        let room = Room(canvas: canvas, config: options.room, metrics: metrics, now: now)
        rooms[id] = room
        return room
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
        for room in rooms.values {
            try? store.save(room.canvas.committedSnapshot)
        }
    }

    // MARK: The libwebsockets callback

    fileprivate func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        let key = Int(bitPattern: UnsafeRawPointer(wsi))
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            if shutdownRequested.load(ordering: .sequentiallyConsistent) { beginShutdown() }
            return 0

        case LWS_CALLBACK_HTTP:
            let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
            return respond(wsi, key, to: path)

        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let body = httpBodies.removeValue(forKey: key) else { return 0 }
            let sent = write(wsi, body.bytes, LWS_WRITE_HTTP_FINAL)
            return sent && lws_http_transaction_completed(wsi) == 0 ? 0 : -1

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
            httpBodies[key] = nil
            pendingUpgrades[key] = nil
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, nil, input, len)
        }
    }

    private func open(_ wsi: OpaquePointer, _ key: Int, _ address: CanvasAddress) -> Int32 {
        let id = nextConnection
        nextConnection += 1
        let room: Room
        do {
            room = try self.room(for: address.canvas)
        } catch {
            logger.error("cannot load canvas", metadata: ["canvas": "\(address.canvas)", "error": "\(error)"])
            return -1
        }
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
        room.join(session: id, address: address, canEdit: address.role != "viewer", outbox: conn.outbox, now: now)
        return 0
    }

    private func receive(_ conn: Connection, _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ len: Int) {
        let first = lws_is_first_fragment(wsi) != 0, last = lws_is_final_fragment(wsi) != 0
        if first {
            conn.rx.removeAll(keepingCapacity: true)
            conn.discarding = false
            conn.rxBinary = lws_frame_is_binary(wsi) != 0
        }
        guard let room = rooms[conn.canvas] else { return }
        if !conn.discarding, let input {
            if conn.rx.count + len > options.maxMessageBytes {
                conn.discarding = true
                conn.rx.removeAll()
                room.receiveInvalid(ProtocolError(.tooLarge, "messages are limited to \(options.maxMessageBytes) bytes"), from: conn.id, now: now)
            } else {
                conn.rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
            }
        }
        guard last, !conn.discarding else { return }
        let received = ContinuousClock.now
        if conn.rxBinary {
            room.receiveInvalid(ProtocolError(.binaryFrame, "the protocol is JSON in text frames"), from: conn.id, now: now)
        } else {
            do {
                let message = try ClientMessage.decode(conn.rx)
                room.receive(message, from: conn.id, now: now)
                if case .op(_, let op) = message, op.commits { ackLatency.record(ContinuousClock.now - received) }
            } catch {
                room.receiveInvalid(error, from: conn.id, now: now)
            }
        }
        conn.rx.removeAll(keepingCapacity: true)
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

    private func respond(_ wsi: OpaquePointer, _ key: Int, to path: String) -> Int32 {
        let (status, type, body) = httpResponse(path: path)
        var headers = [UInt8](repeating: 0, count: Int(snapboard_lws_pre) + 1024)
        let ok = headers.withUnsafeMutableBufferPointer { buf -> Bool in
            let start = buf.baseAddress! + Int(snapboard_lws_pre)
            var p: UnsafeMutablePointer<UInt8>? = start
            let end = buf.baseAddress! + buf.count - 1
            guard type.withCString({ lws_add_http_common_headers(wsi, UInt32(status), $0, lws_filepos_t(body.count), &p, end) }) == 0
            else { return false }
            return lws_finalize_write_http_header(wsi, start, &p, end) == 0
        }
        guard ok else { return -1 }
        httpBodies[key] = HTTPBody(bytes: body)
        lws_callback_on_writable(wsi)
        return 0
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
                if let room = rooms[address.canvas] { return (200, "application/json", room.snapshotJSON) }
                let snapshot = (try? store.load(address.canvas)) ?? nil
                let canvas = (try? snapshot.map { try Canvas(snapshot: $0) } ?? Canvas(id: address.canvas, config: options.canvas))
                guard let canvas else { return (500, "application/json", Array(#"{"error":"cannot load canvas"}"#.utf8)) }
                return (200, "application/json", Room(canvas: canvas, config: options.room, now: now).snapshotJSON)
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
        return String(cString: buf)
    }

    /// The query string, from libwebsockets' already-split argument fragments.
    private func query(_ wsi: OpaquePointer) -> String? {
        var parts: [String] = []
        var buf = [CChar](repeating: 0, count: 1024)
        var i: Int32 = 0
        while lws_hdr_copy_fragment(wsi, &buf, Int32(buf.count), WSI_TOKEN_HTTP_URI_ARGS, i) > 0 {
            parts.append(String(cString: buf))
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
