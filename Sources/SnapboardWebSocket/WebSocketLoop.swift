import CLibWebSockets
import Dispatch
import Foundation
import Synchronization

/// What a `WebSocketLoop` reports. Every method is called on the loop's service thread, which is also
/// the only thread that may call the loop's `connect`, `send`, `close` and `schedule`.
public protocol WebSocketLoopDelegate: AnyObject {
    /// The upgrade of `connection` completed.
    func opened(_ connection: WebSocketConnection)
    /// A whole message arrived on `connection` (all fragments joined).
    func received(_ connection: WebSocketConnection, _ message: [UInt8], binary: Bool)
    /// `connection` closed; `code` is the peer's close code when it sent one.
    func closed(_ connection: WebSocketConnection, code: UInt16?, reason: String)
    /// `connection` could not be made: refused, or the upgrade was answered with an HTTP error.
    func failed(_ connection: WebSocketConnection, _ why: String)
    /// The timer set with `schedule(after:)` fired.
    func timerFired()
}

/// One client connection of a `WebSocketLoop`. Only the loop's service thread touches it.
public final class WebSocketConnection {
    /// Whatever the owner wants to find again from a callback (an index into its own tables).
    public let tag: Int
    fileprivate var wsi: OpaquePointer?
    fileprivate var outgoing: [Outgoing] = []
    fileprivate var outgoingHead = 0
    /// The frame being written in fragments, and how many of them are out.
    fileprivate var writing: (frame: Outgoing, sent: Int)?
    fileprivate var closeRequested: (code: UInt16, reason: String)?
    fileprivate var rx: [UInt8] = []
    fileprivate var rxBinary = false
    fileprivate var peerClose: UInt16?
    fileprivate var peerReason = ""

    /// Whether the upgrade completed and the connection has not closed since.
    public private(set) var isOpen = false

    fileprivate init(tag: Int) { self.tag = tag }

    fileprivate func markOpen(_ wsi: OpaquePointer?) {
        self.wsi = wsi
        isOpen = true
    }

    fileprivate func markClosed() {
        wsi = nil
        isOpen = false
    }

    fileprivate func enqueue(_ frame: Outgoing) { outgoing.append(frame) }

    fileprivate func dequeue() -> Outgoing? {
        guard outgoingHead < outgoing.count else { return nil }
        let frame = outgoing[outgoingHead]
        outgoingHead += 1
        if outgoingHead == outgoing.count {
            outgoing.removeAll(keepingCapacity: true)
            outgoingHead = 0
        }
        return frame
    }

    fileprivate var hasWork: Bool { writing != nil || outgoingHead < outgoing.count || closeRequested != nil }
}

/// A message to write: its payload behind `LWS_PRE` bytes of headroom (libwebsockets writes each frame
/// header just before the bytes it sends, so fragments are written in place too), whether it is binary,
/// and how many fragments to split it into.
struct Outgoing {
    var framed: [UInt8]
    var binary: Bool
    var fragments: Int

    init(_ payload: [UInt8], binary: Bool, fragments: Int) {
        let pre = Int(snapboard_lws_pre)
        framed = [UInt8]()
        framed.reserveCapacity(pre + payload.count)
        framed.append(contentsOf: repeatElement(0, count: pre))
        framed.append(contentsOf: payload)
        self.binary = binary
        self.fragments = max(1, fragments)
    }

    var count: Int { framed.count - Int(snapboard_lws_pre) }
}

/// Many WebSocket client connections on one libwebsockets context and one service thread.
///
/// Only the service thread touches libwebsockets. The delegate runs there and may call `connect`,
/// `send`, `close` and `schedule` directly; other threads hand work over with `perform`, which queues
/// a closure and wakes the thread with `lws_cancel_service()`. `WebSocketClient` is a loop with one
/// connection; the load tool puts thousands on one.
public final class WebSocketLoop: @unchecked Sendable {
    public weak var delegate: WebSocketLoopDelegate?

    private let inbox = Mutex(Inbox())
    private let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
    private let timer = UnsafeMutablePointer<snapboard_timer>.allocate(capacity: 1)
    // Service thread only.
    private var context: OpaquePointer?
    private var connections: [ObjectIdentifier: WebSocketConnection] = [:]
    private var thread: Thread?

    struct Inbox {
        var work: [@Sendable (WebSocketLoop) -> Void] = []
        var context: ContextHandle?
        var stopping = false
        var stopped = false
    }

    /// The context, as the inbox keeps it for `lws_cancel_service()` from other threads.
    struct ContextHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Run on libev (epoll) rather than libwebsockets' own poll() loop: with thousands of connections a
    /// wake then costs what is ready, not what is open. Falls back to poll when the plugin is missing.
    public let usesLibev: Bool
    /// Service thread only: the loop has been asked to end; the loop really runs on libev.
    private var ending = false
    private var runningLibev = false

    public init(delegate: WebSocketLoopDelegate? = nil, libev: Bool = false) {
        self.delegate = delegate
        usesLibev = libev
        timer.initialize(to: snapboard_timer())
    }

    deinit {
        protocols.deallocate()
        timer.deallocate()
    }

    /// Creates the context and starts the service thread. Throws when libwebsockets cannot start.
    public func start(name: String = "snapboard-ws-loop") throws {
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in serviceLoop(started: started) }
        thread.name = name
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
        started.wait()
        if inbox.withLock({ $0.stopped }) { throw WebSocketError("cannot create a libwebsockets context") }
    }

    /// Runs `work` on the service thread, soon. Safe from any thread; dropped once the loop has stopped.
    public func perform(_ work: @escaping @Sendable (WebSocketLoop) -> Void) {
        inbox.withLock { box in
            guard !box.stopped else { return }
            box.work.append(work)
            if let context = box.context { lws_cancel_service(context.pointer) }
        }
    }

    /// Stops the service thread after the current callback, dropping every connection.
    public func stop() {
        inbox.withLock { box in
            box.stopping = true
            if let context = box.context { lws_cancel_service(context.pointer) }
        }
    }

    /// Blocks until the service thread has stopped.
    public func wait() {
        while thread?.isFinished == false { usleep(1000) }
    }

    // MARK: Service thread only

    /// Starts connecting to `ws://host:port/path`; the delegate hears `opened` or `failed`.
    @discardableResult
    public func connect(host: String, port: Int, path: String, tag: Int = 0) -> WebSocketConnection {
        let connection = WebSocketConnection(tag: tag)
        guard let context else {
            delegate?.failed(connection, "the loop is not running")
            return connection
        }
        let me = Unmanaged.passUnretained(connection).toOpaque()
        connections[ObjectIdentifier(connection)] = connection
        let wsi = host.withCString { h in path.withCString { p in snapboard_client_connect(context, h, Int32(port), p, me) } }
        // libwebsockets may already have reported the failure through the callback before returning nil.
        if wsi == nil, connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            delegate?.failed(connection, "cannot start connecting to \(host):\(port)")
        }
        return connection
    }

    /// Queues a message: text unless `binary`, split into `fragments` frames (1 means unfragmented).
    public func send(_ connection: WebSocketConnection, _ bytes: [UInt8], binary: Bool = false, fragments: Int = 1) {
        connection.enqueue(Outgoing(bytes, binary: binary, fragments: fragments))
        if let wsi = connection.wsi { lws_callback_on_writable(wsi) }
    }

    /// Closes with `code` once what is queued is written; code 0 drops the socket without a handshake.
    public func close(_ connection: WebSocketConnection, code: UInt16 = 1000, reason: String = "") {
        connection.closeRequested = (code, reason)
        if let wsi = connection.wsi { lws_callback_on_writable(wsi) }
    }

    /// Fires the delegate's `timerFired` after `microseconds`, replacing any earlier schedule. The loop
    /// fires it once as it starts; reschedule from `timerFired`. (On libev, libwebsockets 4.1 re-arms its
    /// timer only after a timer or an I/O event, so a schedule made from a `perform` closure could wait
    /// for its 30-second housekeeping wake.)
    public func schedule(after microseconds: Int) {
        guard let context else { return }
        lws_sul_schedule(context, 0, &timer.pointee.sul, loopTimerCallback, lws_usec_t(max(1, microseconds)))
    }

    private func serviceLoop(started: DispatchSemaphore) {
        lws_set_log_level(Int32(LLL_ERR), nil)
        timer.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
        let me = Unmanaged.passUnretained(self).toOpaque()
        var loop = Int32((usesLibev ? SNAPBOARD_LOOP_LIBEV : SNAPBOARD_LOOP_POLL).rawValue)
        let ctx = snapboard_create_context(protocols, loopCallback, me, nil, 0, 0, 0, &loop)
        context = ctx
        runningLibev = loop == Int32(SNAPBOARD_LOOP_LIBEV.rawValue)
        inbox.withLock { box in
            box.context = ctx.map(ContextHandle.init)
            box.stopped = ctx == nil
        }
        started.signal()
        guard let ctx else { return }
        // The first timerFired, scheduled before the loop runs, so libev arms its timer for it.
        lws_sul_schedule(ctx, 0, &timer.pointee.sul, loopTimerCallback, 1)
        // Handed-over work runs from the cancel callback (drainInbox). With poll, lws_service() returns
        // after every wake; with libev it runs the whole loop, and returns once drainInbox has started the
        // context's destruction (libwebsockets' eventlib pattern), which is finished below.
        while !ending, lws_service(ctx, 0) >= 0 {
            // poll() returns after every wake, even one whose cancel callback did not reach this protocol.
            drainInbox()
        }
        inbox.withLock { box in
            box.stopped = true
            box.context = nil
            box.work.removeAll()
        }
        lws_sul_cancel(&timer.pointee.sul)
        lws_context_destroy(ctx)
        context = nil
        connections.removeAll()
    }

    fileprivate func fire() { delegate?.timerFired() }

    /// Runs the work other threads handed over, and starts the end when asked: called on every
    /// `lws_cancel_service()` wake.
    fileprivate func drainInbox() {
        let (work, stopping) = inbox.withLock { box in
            defer { box.work.removeAll() }
            return (box.work, box.stopping)
        }
        guard !ending else { return }
        if stopping {
            ending = true
            if runningLibev, let context { lws_context_destroy(context) }
            return
        }
        for item in work { item(self) }
    }

    fileprivate func handle(_ connection: WebSocketConnection, _ wsi: OpaquePointer?, _ reason: lws_callback_reasons,
                            _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            connection.markOpen(wsi)
            delegate?.opened(connection)
            if connection.hasWork { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            var why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "unknown error"
            if let wsi, case let status = lws_http_client_http_response(wsi), status > 0 { why += " (HTTP \(status))" }
            forget(connection, wsi)
            delegate?.failed(connection, why)
        case LWS_CALLBACK_CLIENT_RECEIVE:
            if lws_is_first_fragment(wsi) != 0 {
                connection.rx.removeAll(keepingCapacity: true)
                connection.rxBinary = lws_frame_is_binary(wsi) != 0
            }
            if let input { connection.rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len)) }
            if lws_is_final_fragment(wsi) != 0 { delegate?.received(connection, connection.rx, binary: connection.rxBinary) }
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let input, len >= 2 {
                let bytes = UnsafeRawBufferPointer(start: input, count: len)
                connection.peerClose = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
                connection.peerReason = String(decoding: bytes.dropFirst(2), as: UTF8.self)
            }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return write(connection, wsi)
        case LWS_CALLBACK_CLIENT_CLOSED:
            connection.markClosed()
            forget(connection, wsi)
            delegate?.closed(connection, code: connection.peerClose, reason: connection.peerReason)
        default:
            break
        }
        return 0
    }

    /// Drops the loop's reference; libwebsockets may call back on `wsi` afterwards, so it forgets the
    /// connection too.
    private func forget(_ connection: WebSocketConnection, _ wsi: OpaquePointer?) {
        if let wsi { lws_set_opaque_user_data(wsi, nil) }
        connections[ObjectIdentifier(connection)] = nil
    }

    /// One write per writable callback: the next fragment or frame, then the close once the queue is empty.
    private func write(_ connection: WebSocketConnection, _ wsi: OpaquePointer?) -> Int32 {
        if connection.writing == nil, let frame = connection.dequeue() {
            connection.writing = (frame, 0)
        }
        if var (frame, sent) = connection.writing {
            let n = frame.count
            let size = (n + frame.fragments - 1) / frame.fragments
            let start = min(sent * size, n), end = sent == frame.fragments - 1 ? n : min(start + size, n)
            var mode = sent == 0 ? (frame.binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT) : LWS_WRITE_CONTINUATION
            if sent < frame.fragments - 1 { mode = lws_write_protocol(mode.rawValue | LWS_WRITE_NO_FIN.rawValue) }
            // In place: the headroom before a later fragment is bytes already sent, free to overwrite.
            let pre = Int(snapboard_lws_pre)
            connection.writing = nil
            let written = frame.framed.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + pre + start, end - start, mode) }
            guard written >= end - start else { return -1 }
            sent += 1
            connection.writing = sent == frame.fragments ? nil : (frame, sent)
            if connection.hasWork { lws_callback_on_writable(wsi) }
            return 0
        }
        if let close = connection.closeRequested {
            if close.code == 0 { return -1 }
            var reason = Array(close.reason.utf8.prefix(120))
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(close.code)), &reason, reason.count)
            return -1
        }
        return 0
    }
}

private func loopCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let loopPointer = lws_context_user(lws_get_context(wsi)) else { return 0 }
    let loop = Unmanaged<WebSocketLoop>.fromOpaque(loopPointer).takeUnretainedValue()
    if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
        loop.drainInbox()
        return 0
    }
    guard let owner = lws_get_opaque_user_data(wsi) else { return 0 }
    let connection = Unmanaged<WebSocketConnection>.fromOpaque(owner).takeUnretainedValue()
    return loop.handle(connection, wsi, reason, input, len)
}

private func loopTimerCallback(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    guard let sul else { return }
    let timer = UnsafeMutableRawPointer(sul).assumingMemoryBound(to: snapboard_timer.self)
    guard let owner = timer.pointee.owner else { return }
    Unmanaged<WebSocketLoop>.fromOpaque(owner).takeUnretainedValue().fire()
}
