import CLibWebSockets
import DequeModule
import Dispatch
import Foundation
import SnapboardLWS
import SnapboardProtocol
import SnapboardLock

/// Many WebSocket client connections on one libwebsockets context and one service thread.
///
/// Only the service thread touches libwebsockets. The delegate runs there and may call `connect`,
/// `send`, `close` and `schedule` directly; other threads hand work over with `perform`.
/// `WebSocketClient` is a loop with one connection; the load tool puts thousands on one.
public final class WebSocketLoop: @unchecked Sendable {
    public weak var delegate: WebSocketLoopDelegate?
    /// The largest message a connection accepts; a larger one closes it with 1009.
    public let maxMessageBytes: Int
    private let context: LWSContext
    private var thread: Thread?
    /// Service thread only: connections libwebsockets may still call back about.
    private var connections: [ObjectIdentifier: WebSocketConnection] = [:]

    /// A loop on libev (falling back to poll when the plugin is missing) or on poll. With `tls`, its
    /// connections may be `wss://`, their servers verified against `tls.caFile` (or the system's trust
    /// store when it is nil).
    public init(delegate: WebSocketLoopDelegate? = nil, libev: Bool = false, maxMessageBytes: Int = 64 << 20,
                tls: ClientTLS? = nil) {
        self.delegate = delegate
        self.maxMessageBytes = maxMessageBytes
        context = LWSContext(role: .client, eventLoop: libev ? .libev : .poll)
        context.tls = tls.map { .client(caFile: $0.caFile) }
        context.handler = self
    }

    /// Whether the loop really runs on libev, once started.
    public var usesLibev: Bool { context.eventLoop == .libev }

    /// Creates the context and starts the service thread. Throws when libwebsockets cannot start.
    public func start(name: String = "snapboard-ws-loop") throws {
        let opened = DispatchSemaphore(value: 0)
        let failure = Locked<LWSError?>(nil)
        let thread = Thread { [self] in
            do {
                try context.open(logLevel: Int32(LLL_ERR))
            } catch {
                failure.withLock { $0 = error as? LWSError ?? LWSError("\(error)") }
                opened.signal()
                return
            }
            // The first timerFired, scheduled before the loop runs, so libev arms its timer for it.
            context.schedule(after: 1)
            opened.signal()
            context.run()
            connections.removeAll()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
        opened.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Runs `work` on the service thread, soon. Safe from any thread; dropped once the loop has stopped.
    public func perform(_ work: @escaping @Sendable (WebSocketLoop) -> Void) {
        context.perform { [self] in work(self) }
    }

    /// Stops the service thread after the current callback, dropping every connection.
    public func stop() { context.stop() }

    /// Blocks until the service thread has stopped.
    public func wait() {
        while thread?.isFinished == false { usleep(1000) }
    }

    // MARK: Service thread only

    /// Starts connecting to `ws://host:port/path`, or `wss://` with `secure` (the loop needs `tls`); the
    /// delegate hears `opened` or `failed`.
    @discardableResult
    public func connect(host: String, port: Int, path: String, secure: Bool = false, tag: Int = 0) -> WebSocketConnection {
        let connection = WebSocketConnection(tag: tag, maxMessageBytes: maxMessageBytes)
        connections[ObjectIdentifier(connection)] = connection
        let started = context.connect(host: host, port: port, path: path, secure: secure,
                                      opaque: Unmanaged.passUnretained(connection).toOpaque())
        // libwebsockets may already have reported the failure through the callback before returning nil.
        if started == nil, connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            delegate?.failed(connection, "cannot start connecting to \(host):\(port)")
        }
        return connection
    }

    /// Queues a message: text unless `binary`, split into `fragments` frames (1 means unfragmented).
    public func send(_ connection: WebSocketConnection, _ bytes: [UInt8], binary: Bool = false, fragments: Int = 1) {
        connection.outgoing.append(Outgoing(frame: Frame(payload: bytes), binary: binary, fragments: max(1, fragments)))
        connection.socket?.requestWritable()
    }

    /// Closes with `code` once what is queued is written; code 0 drops the socket without a handshake.
    public func close(_ connection: WebSocketConnection, code: UInt16 = 1000, reason: String = "") {
        connection.closeRequested = (code, reason)
        connection.socket?.requestWritable()
    }

    /// Fires the delegate's `timerFired` after `microseconds`, replacing any earlier schedule. The loop
    /// fires it once as it starts; reschedule from `timerFired`.
    public func schedule(after microseconds: Int) { context.schedule(after: microseconds) }

    /// Drops the loop's reference; libwebsockets may call back on the socket afterwards, so it forgets
    /// the connection too.
    private func forget(_ connection: WebSocketConnection, _ socket: LWSSocket) {
        socket.forgetOpaque()
        connections[ObjectIdentifier(connection)] = nil
    }

    /// One write per writable callback: the next fragment or frame, then the close once the queue is empty.
    private func write(_ connection: WebSocketConnection, _ socket: LWSSocket) -> Int32 {
        if connection.writing == nil, let next = connection.outgoing.popFirst() {
            connection.writing = (next, 0)
        }
        if let (message, sent) = connection.writing {
            let n = message.frame.count, fragments = message.fragments
            let size = (n + fragments - 1) / fragments
            let start = min(sent * size, n), end = sent == fragments - 1 ? n : min(start + size, n)
            var mode = sent == 0 ? (message.binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT) : LWS_WRITE_CONTINUATION
            if sent < fragments - 1 { mode = lws_write_protocol(mode.rawValue | LWS_WRITE_NO_FIN.rawValue) }
            // In place: the headroom before a later fragment is bytes already sent, free to overwrite.
            guard socket.write(message.frame, range: start..<end, mode: mode) else { return -1 }
            connection.writing = sent + 1 == fragments ? nil : (message, sent + 1)
            if connection.hasWork { socket.requestWritable() }
            return 0
        }
        if let close = connection.closeRequested {
            if close.code != 0 { socket.close(code: close.code, reason: close.reason) }
            return -1
        }
        return 0
    }
}

extension WebSocketLoop: LWSHandler {
    public func callback(_ socket: LWSSocket, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        guard let owner = socket.opaque else { return 0 }
        let connection = Unmanaged<WebSocketConnection>.fromOpaque(owner).takeUnretainedValue()
        switch reason {
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            connection.socket = socket
            delegate?.opened(connection)
            if connection.hasWork { socket.requestWritable() }
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            var why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "unknown error"
            if case let status = lws_http_client_http_response(socket.wsi), status > 0 { why += " (HTTP \(status))" }
            forget(connection, socket)
            delegate?.failed(connection, why)
        case LWS_CALLBACK_CLIENT_RECEIVE:
            // A message in one piece (nearly all of them) is lent to the delegate where libwebsockets holds
            // it; the assembler, holding nothing, would only copy it.
            if let input, len <= maxMessageBytes, connection.assembler.heldBytes == 0, !connection.assembler.isSkipping,
               socket.isFirstFragment, socket.isFinalFragment {
                delegate?.received(connection, lent: UnsafeRawBufferPointer(start: input, count: len), binary: socket.isBinary)
                return 0
            }
            switch socket.receive(input, len, into: &connection.assembler) {
            case .message(let bytes, let binary)?:
                delegate?.received(connection, bytes, binary: binary)
            case .tooLarge?:
                socket.close(code: CloseCode.messageTooBig, reason: "message too large")
                return -1
            case nil:
                break
            }
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            connection.peerClose = LWSSocket.peerClose(input, len)
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return write(connection, socket)
        case LWS_CALLBACK_CLIENT_CLOSED:
            connection.socket = nil
            forget(connection, socket)
            delegate?.closed(connection, code: connection.peerClose?.code, reason: connection.peerClose?.reason ?? "")
        default:
            break
        }
        return 0
    }

    public func timerFired() { delegate?.timerFired() }
}
