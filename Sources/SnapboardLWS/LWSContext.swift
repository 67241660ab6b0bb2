import CLibWebSockets
import CSnapboardLWS
import SnapboardProtocol
import SnapboardLock

#if canImport(Glibc)
import Glibc
#endif

/// One libwebsockets context and the rules for using it from Swift: it chooses the event loop (libev,
/// falling back to poll once when the plugin is missing), runs the service loop, takes work from other
/// threads (`perform`, `wake`), keeps one timer, and routes every callback to its handler.
///
/// Only the service thread (the one inside `run()`) touches libwebsockets. `perform`, `wake` and `stop`
/// are safe from any thread: they queue under a lock and call `lws_cancel_service()`, and the service
/// thread picks the work up in `LWS_CALLBACK_EVENT_WAIT_CANCELLED`.
///
/// Everything libwebsockets keeps a pointer to (the protocol table, the timer, the interface name) is
/// owned here and freed only after the context is destroyed.
public final class LWSContext: @unchecked Sendable {
    /// Where a context listens: a server vhost on `host:port` (port 0 picks a free one), a server vhost that
    /// listens nowhere and serves the sockets another thread accepted (`adopt`), or nowhere (clients).
    public enum Role: Sendable {
        case server(host: String, port: Int)
        case adopting
        case client
    }

    public weak var handler: LWSHandler?
    /// The loop the context really runs on, once `open()` returned.
    public private(set) var eventLoop: EventLoop
    private let role: Role

    private let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
    private let timer = UnsafeMutablePointer<snapboard_timer>.allocate(capacity: 1)
    /// The keepalive policy libwebsockets points at (a server's `keepalive`).
    private let retry = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
    /// A server pings a connection silent for `pingSeconds` and drops it when nothing at all (not even the
    /// pong) came for `hangupSeconds`; set before `open()`. Nil keeps libwebsockets' defaults.
    public var keepalive: (pingSeconds: Int, hangupSeconds: Int)?
    /// A server: seconds a connection may take to finish its TLS and HTTP handshake before it is dropped;
    /// set before `open()`.
    public var handshakeTimeout = 10
    /// TLS, set before `open()`: a server serves `https://` and `wss://` only; a client can connect to
    /// `wss://` (plain `ws://` still works).
    public var tls: TLS?
    /// C strings libwebsockets keeps pointers to (the interface name, which it may retry the bind with,
    /// and the TLS files): freed after the context.
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private let inbox = Locked(Inbox())
    /// Service thread only (and `open`, before the service thread runs).
    private var context: OpaquePointer?
    private var ending = false
    /// The libev loop made for an `.adopting` context, which is ours to break and destroy.
    private var ownLoop: UnsafeMutableRawPointer?

    struct Inbox {
        var work: [@Sendable () -> Void] = []
        var context: Handle?
        var stopping = false
        var stopped = false
    }

    /// The context pointer, as the inbox keeps it for `lws_cancel_service()`, which any thread may call.
    struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// What TLS a context does.
    public enum TLS: Sendable, Equatable {
        /// A server's PEM certificate (or chain) and private key files.
        case server(certificate: String, privateKey: String)
        /// A client verifies servers against this PEM file of certificates, or the system's trust store.
        case client(caFile: String?)
    }

    /// The receive buffer libwebsockets allocates for each server WebSocket for the connection's whole
    /// life, and the most payload one receive callback hands over. Every idle connection holds one:
    /// libwebsockets' default, 4 KiB, would be more than half of an idle connection's RSS
    /// (docs/results/2026-11-27-presence-memory.md). A drag's update, the commonest message, is about 100
    /// bytes; a longer message arrives in pieces, which `FrameAssembler` joins under the same size limits.
    public static let serverReceiveBytes = 512
    /// The most one `send()` writes before libwebsockets buffers the rest of a frame. libwebsockets ties
    /// it to the receive buffer unless it is set: this keeps the 4 KiB it was with the default buffer.
    public static let sendChunkBytes = 4096

    public init(role: Role, eventLoop: EventLoop, handler: LWSHandler? = nil) {
        self.role = role
        self.eventLoop = eventLoop
        self.handler = handler
        // libwebsockets expects a zeroed timer (its list links) before the first lws_sul_schedule().
        timer.initialize(to: snapboard_timer())
        retry.initialize(to: lws_retry_bo_t())
    }

    deinit {
        // A context created but never run still points at the protocols and the timer: destroy it first.
        if let context { lws_context_destroy(context) }
        for string in strings { free(string) }
        protocols.deallocate()
        timer.deallocate()
        retry.deallocate()
    }

    /// Creates the libwebsockets context (and binds, for a server). Call on the thread that will `run()`.
    public func open(logLevel: Int32 = Int32(LLL_ERR | LLL_WARN)) throws {
        guard Int(snapboard_lws_pre) <= Frame.headroom else {
            throw LWSError("libwebsockets needs \(snapboard_lws_pre) bytes of headroom; frames reserve \(Frame.headroom)")
        }
        // Said plainly up front: libwebsockets would log its bind errors, retry on another event loop, and fail.
        if case .server(let host, let port) = role, port != 0, Self.isTaken(host: host, port: port) {
            throw LWSError("port \(port) on \(host) is already in use (another server is listening there; stop it, or pick another --port)")
        }
        lws_set_log_level(logLevel, emitLibwebsocketsLog)
        let me = Unmanaged.passUnretained(self).toOpaque()
        timer.pointee.owner = me
        var loop = eventLoop.code
        if let keepalive {
            retry.pointee.secs_since_valid_ping = UInt16(clamping: keepalive.pingSeconds)
            retry.pointee.secs_since_valid_hangup = UInt16(clamping: max(keepalive.hangupSeconds, keepalive.pingSeconds + 1))
        }
        var options = snapboard_context_options()
        options.protocols = protocols
        options.callback = contextCallback
        options.user = me
        options.retry = keepalive == nil ? nil : UnsafePointer(retry)
        options.handshake_timeout = UInt32(clamping: max(1, handshakeTimeout))
        if case .client = role {} else {
            options.rx_buffer_size = Self.serverReceiveBytes
            options.tx_packet_size = Self.sendChunkBytes
        }
        switch role {
        case .server(let host, let port):
            options.server = 1
            options.iface = UnsafePointer(keep(host))
            options.port = Int32(port)
        case .adopting:
            options.server = 1
            options.port = CONTEXT_PORT_NO_LISTEN_SERVER
            // Several of these run in one process (one a shard): each on a libev loop of its own.
            options.own_loop = 1
        case .client:
            break
        }
        switch tls {
        case .server(let certificate, let privateKey)?:
            options.tls_cert = UnsafePointer(keep(certificate))
            options.tls_key = UnsafePointer(keep(privateKey))
        case .client(let caFile)?:
            options.client_tls = 1
            options.tls_ca = caFile.map { UnsafePointer(keep($0)) }
        case nil:
            break
        }
        context = snapboard_create_context(&options, &loop)
        ownLoop = options.loop
        if loop != eventLoop.code { eventLoop = .poll }
        inbox.withLock { box in
            box.context = context.map(Handle.init)
            box.stopped = context == nil
        }
        guard context != nil else {
            switch role {
            case .server(let host, let port) where tls != nil:
                throw LWSError("cannot listen on \(host):\(port) with TLS (is the port taken, or the certificate or key unreadable or not a pair?)")
            case .server(let host, let port): throw LWSError("cannot listen on \(host):\(port)")
            case .adopting, .client: throw LWSError("cannot create a libwebsockets context")
            }
        }
    }

    /// Whether another socket already listens on `host:port` (IPv4, as the server listens): a bind there
    /// fails with `EADDRINUSE`, with the same `SO_REUSEADDR` libwebsockets sets.
    static func isTaken(host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else { return false }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        return bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 && errno == EADDRINUSE
    }

    /// A C copy of `string` that lives as long as the context.
    private func keep(_ string: String) -> UnsafeMutablePointer<CChar> {
        let copy = strdup(string)!
        strings.append(copy)
        return copy
    }

    /// The port a server context listens on: the real one when it asked for port 0.
    public var listenPort: Int { context.map { Int(snapboard_listen_port($0)) } ?? -1 }

    /// Serves until `stop()`, then destroys the context. The calling thread is the service thread.
    public func run() {
        guard let context else { return }
        // With poll, lws_service() returns after every wake; with libev it runs the whole loop and returns
        // once the context's destruction has started (libwebsockets' eventlib pattern), finished below.
        while !ending, lws_service(context, 0) >= 0 {
            // A poll wake whose cancel callback did not reach the protocol still drains the inbox.
            drainInbox()
        }
        inbox.withLock { box in
            box.stopped = true
            box.context = nil
            box.work.removeAll()
        }
        lws_sul_cancel(&timer.pointee.sul)
        lws_context_destroy(context)
        self.context = nil
        if let ownLoop { snapboard_ev_loop_destroy(ownLoop) }
        ownLoop = nil
    }

    /// Runs `work` on the service thread, soon. Safe from any thread; dropped once the context has stopped
    /// (then it returns false).
    @discardableResult
    public func perform(_ work: @escaping @Sendable () -> Void) -> Bool {
        inbox.withLock { box in
            guard !box.stopped else { return false }
            box.work.append(work)
            if let context = box.context { lws_cancel_service(context.pointer) }
            return true
        }
    }

    /// Serves socket `fd`, accepted by another thread, as if this context's listener had accepted it (an
    /// `.adopting` server). Service thread only. False when libwebsockets refused it; it closed `fd` then.
    public func adopt(_ fd: Int32) -> Bool {
        guard let context else {
            close(fd)
            return false
        }
        return snapboard_adopt(context, fd) != 0
    }

    /// Wakes the service thread, which calls the handler's `woken()`. Safe from any thread.
    public func wake() {
        inbox.withLock { box in
            if let context = box.context { lws_cancel_service(context.pointer) }
        }
    }

    /// Ends `run()` after the current callback, dropping every connection. Safe from any thread.
    public func stop() {
        inbox.withLock { box in
            box.stopping = true
            if let context = box.context { lws_cancel_service(context.pointer) }
        }
    }

    /// Fires the handler's `timerFired` after `microseconds`, replacing any earlier schedule. Service
    /// thread only, or before `run()`. (On libev, libwebsockets 4.1 re-arms its timer only after a timer
    /// or an I/O event, so schedule the first one before `run()`, not from a `perform` closure.)
    public func schedule(after microseconds: Int) {
        guard let context else { return }
        lws_sul_schedule(context, 0, &timer.pointee.sul, timerCallback, lws_usec_t(max(1, microseconds)))
    }

    /// Starts a client connection to `ws://host:port/path`, or `wss://` with `secure` (the context needs
    /// client TLS); `opaque` comes back from `LWSSocket.opaque`. Nil when it cannot even start
    /// (libwebsockets may already have called back with an error).
    /// With `method` (`GET`) it is a plain HTTP request, answered through the `*_CLIENT_HTTP` callbacks.
    /// `verifyName` false checks the certificate's chain but not that it names `host`.
    public func connect(host: String, port: Int, path: String, secure: Bool = false, verifyName: Bool = true, method: String? = nil,
                        opaque: UnsafeMutableRawPointer) -> LWSSocket? {
        guard let context else { return nil }
        let tls: Int32 = secure ? (verifyName ? 1 : 2) : 0
        let wsi = host.withCString { h in
            path.withCString { p in
                // libwebsockets copies the strings it is given into the connection's own stash.
                guard let method else { return snapboard_client_connect(context, h, Int32(port), p, opaque, tls, nil) }
                return method.withCString { m in snapboard_client_connect(context, h, Int32(port), p, opaque, tls, m) }
            }
        }
        return wsi.map(LWSSocket.init)
    }

    // MARK: Service thread

    fileprivate func drainInbox() {
        let (work, stopping) = inbox.withLock { box in
            defer { box.work.removeAll() }
            return (box.work, box.stopping)
        }
        guard !ending else { return }
        if stopping {
            ending = true
            // On an event library the loop runs inside lws_service() until destruction starts.
            if eventLoop != .poll, let context { lws_context_destroy(context) }
            // libwebsockets does not stop a loop it did not make.
            if let ownLoop { snapboard_ev_break(ownLoop) }
            return
        }
        for item in work { item() }
        handler?.woken()
    }

    fileprivate func dispatch(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                              _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
            drainInbox()
            return 0
        }
        guard let handler else { return lws_callback_http_dummy(wsi, reason, user, input, len) }
        return handler.callback(LWSSocket(wsi), reason, input, len)
    }

    fileprivate func fire() { handler?.timerFired() }
}

private func contextCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let me = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, len)
    }
    return Unmanaged<LWSContext>.fromOpaque(me).takeUnretainedValue().dispatch(wsi, reason, user, input, len)
}

private func timerCallback(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    guard let sul else { return }
    let timer = UnsafeMutableRawPointer(sul).assumingMemoryBound(to: snapboard_timer.self)
    guard let owner = timer.pointee.owner else { return }
    Unmanaged<LWSContext>.fromOpaque(owner).takeUnretainedValue().fire()
}
