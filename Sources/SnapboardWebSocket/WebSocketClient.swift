import CLibWebSockets
import Dispatch
import Foundation
import Synchronization

/// A WebSocket client on libwebsockets' client API, with its own service thread. Other threads call
/// `send` and `next`; they hand work to the service thread through a locked queue plus
/// `lws_cancel_service()`, and only the service thread touches libwebsockets.
///
/// The terminal client, the load tool and the end-to-end tests all connect through this one type.
public final class WebSocketClient: @unchecked Sendable {
    /// Something that happened on the connection.
    public enum Event: Equatable, Sendable {
        /// The upgrade completed.
        case open
        /// A whole message (all fragments joined); `binary` for binary frames.
        case message([UInt8], binary: Bool)
        /// The connection closed; `code` is the peer's close code when it sent one.
        case closed(code: UInt16?, reason: String)
        /// The connection could not be made (refused, or the upgrade was answered with an HTTP error).
        case failed(String)
    }

    /// A frame to write: the payload, whether it is binary, and how many fragments to split it into.
    struct Outgoing {
        var payload: [UInt8]
        var binary: Bool
        var fragments: Int
    }

    public let host: String
    public let port: Int
    public let path: String

    private let shared = Mutex(Shared())
    private let ready = DispatchSemaphore(value: 0)
    private let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
    // Service thread only: the context and socket handles, and the message being received.
    private var context: OpaquePointer?
    private var wsi: OpaquePointer?
    private var rx: [UInt8] = []
    private var rxBinary = false
    private var peerClose: UInt16?
    private var peerReason = ""
    /// The frame being written in fragments, and how many of them are out.
    private var writing: (frame: Outgoing, sent: Int)?
    private var thread: Thread?

    struct Shared {
        var outgoing: [Outgoing] = []
        var events: [Event] = []
        var closeRequested: (code: UInt16, reason: String)?
        var stopped = false
    }

    /// A client for `ws://host:port/path?query`.
    public init(url: String) throws {
        guard url.hasPrefix("ws://") else { throw WebSocketError("only ws:// URLs are supported: \(url)") }
        let rest = url.dropFirst(5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
        if let colon = authority.lastIndex(of: ":"), let p = Int(authority[authority.index(after: colon)...]) {
            host = String(authority[..<colon])
            port = p
        } else {
            host = String(authority)
            port = 80
        }
    }

    deinit {
        protocols.deallocate()
    }

    /// Connects and waits for the upgrade. Throws when it fails or takes longer than `timeout` seconds.
    public func connect(timeout: Double = 5) throws {
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in serviceLoop(started: started) }
        thread.name = "snapboard-ws-client"
        self.thread = thread
        thread.start()
        started.wait()
        switch next(timeout: timeout) {
        case .open?: return
        case .failed(let why)?: throw WebSocketError("connection failed: \(why)")
        case .closed(let code, let reason)?: throw WebSocketError("closed while connecting: \(code.map(String.init) ?? "-") \(reason)")
        case .message?, nil: throw WebSocketError("no upgrade within \(timeout) s")
        }
    }

    /// Queues a text message.
    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Queues a message: text unless `binary`, split into `fragments` frames (1 means unfragmented).
    public func send(_ bytes: [UInt8], binary: Bool = false, fragments: Int = 1) {
        shared.withLock { $0.outgoing.append(Outgoing(payload: bytes, binary: binary, fragments: max(1, fragments))) }
        wake()
    }

    /// The next event, waiting up to `timeout` seconds.
    public func next(timeout: Double) -> Event? {
        guard ready.wait(timeout: .now() + timeout) == .success else { return nil }
        return shared.withLock { $0.events.removeFirst() }
    }

    /// Closes with `code` after what is queued, and stops the service thread.
    public func close(code: UInt16 = 1000, reason: String = "") {
        shared.withLock { $0.closeRequested = (code, reason) }
        wake()
    }

    /// Drops the connection without a closing handshake, like a crashed client.
    public func abort() {
        shared.withLock { $0.closeRequested = (0, "") }
        wake()
    }

    private func wake() {
        shared.withLock { s in
            if !s.stopped, let context { lws_cancel_service(context) }
        }
    }

    private func push(_ event: Event) {
        shared.withLock { $0.events.append(event) }
        ready.signal()
    }

    // MARK: Service thread

    private func serviceLoop(started: DispatchSemaphore) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        lws_set_log_level(Int32(LLL_ERR), nil)
        let ctx = snapboard_create_context(protocols, clientCallback, me, nil, 0, 0, 0)
        shared.withLock { _ in context = ctx }
        started.signal()
        guard let ctx else {
            push(.failed("cannot create a libwebsockets context"))
            return
        }
        let connected = host.withCString { h in path.withCString { p in snapboard_client_connect(ctx, h, Int32(port), p, me) } }
        if connected == nil { push(.failed("cannot start connecting to \(host):\(port)")) }
        var done = connected == nil
        while !done {
            if lws_service(ctx, 0) < 0 { break }
            done = shared.withLock { $0.stopped }
        }
        shared.withLock { s in
            s.stopped = true
            context = nil
        }
        lws_context_destroy(ctx)
    }

    fileprivate func handle(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            self.wsi = wsi
            push(.open)
            if shared.withLock({ !$0.outgoing.isEmpty }) { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            var why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "unknown error"
            if let wsi, case let status = lws_http_client_http_response(wsi), status > 0 { why += " (HTTP \(status))" }
            push(.failed(why))
            stop()
        case LWS_CALLBACK_CLIENT_RECEIVE:
            if lws_is_first_fragment(wsi) != 0 {
                rx.removeAll(keepingCapacity: true)
                rxBinary = lws_frame_is_binary(wsi) != 0
            }
            if let input { rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len)) }
            if lws_is_final_fragment(wsi) != 0 { push(.message(rx, binary: rxBinary)) }
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let input, len >= 2 {
                let bytes = UnsafeRawBufferPointer(start: input, count: len)
                peerClose = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
                peerReason = String(decoding: bytes.dropFirst(2), as: UTF8.self)
            }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return write(wsi)
        case LWS_CALLBACK_CLIENT_CLOSED:
            push(.closed(code: peerClose, reason: peerReason))
            self.wsi = nil
            stop()
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            guard let wsi = self.wsi else {
                if shared.withLock({ $0.closeRequested != nil }) { stop() }
                return 0
            }
            if shared.withLock({ !$0.outgoing.isEmpty || $0.closeRequested != nil }) { lws_callback_on_writable(wsi) }
        default:
            break
        }
        return 0
    }

    private func stop() {
        shared.withLock { $0.stopped = true }
    }

    /// One write per writable callback: the next fragment or frame, then the close once the queue is empty.
    private func write(_ wsi: OpaquePointer?) -> Int32 {
        if writing == nil, let frame = shared.withLock({ $0.outgoing.isEmpty ? nil : $0.outgoing.removeFirst() }) {
            writing = (frame, 0)
        }
        if let (frame, sentSoFar) = writing {
            var sent = sentSoFar
            let n = frame.payload.count
            let size = (n + frame.fragments - 1) / frame.fragments
            let start = min(sent * size, n), end = sent == frame.fragments - 1 ? n : min(start + size, n)
            var mode = sent == 0 ? (frame.binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT) : LWS_WRITE_CONTINUATION
            if sent < frame.fragments - 1 { mode = lws_write_protocol(mode.rawValue | LWS_WRITE_NO_FIN.rawValue) }
            let pre = Int(snapboard_lws_pre)
            var buffer = [UInt8](repeating: 0, count: pre + end - start)
            buffer.replaceSubrange(pre..., with: frame.payload[start..<end])
            let written = buffer.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + pre, end - start, mode) }
            guard written >= end - start else { return -1 }
            sent += 1
            writing = sent == frame.fragments ? nil : (frame, sent)
            lws_callback_on_writable(wsi)
            return 0
        }
        if let close = shared.withLock({ $0.closeRequested }) {
            if close.code == 0 { return -1 }
            var reason = Array(close.reason.utf8.prefix(120))
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(close.code)), &reason, reason.count)
            return -1
        }
        return 0
    }
}

/// A client error, with what went wrong.
public struct WebSocketError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

private func clientCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    let owner = wsi.flatMap { lws_get_opaque_user_data($0) } ?? wsi.flatMap { lws_get_context($0) }.flatMap { lws_context_user($0) }
    guard let owner else { return 0 }
    return Unmanaged<WebSocketClient>.fromOpaque(owner).takeUnretainedValue().handle(wsi, reason, input, len)
}
