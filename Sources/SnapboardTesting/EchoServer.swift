import CLibWebSockets
import SnapboardLWS
import SnapboardProtocol

/// The peer the WebSocket conformance suite (`make conformance`) runs against: a WebSocket on `/` that
/// sends every message back as it came. It runs on the same libwebsockets context settings as the server,
/// and its messages go through the same receive path as a session's (frames parsed and checked, fragments
/// joined, the size cap), so the cases test what a session gets. The server itself has no echo in it:
/// `snapboard-server --conformance-echo` runs this instead.
///
/// Service thread only, like the context it runs: `start()` and `run()` on one thread.
public final class EchoServer: LWSHandler, @unchecked Sendable {
    private let context: LWSContext
    private let maxMessageBytes: Int
    private let lingerer = Lingerer()
    private var echoes: [Int: Echo] = [:]

    /// The port it listens on, once `start()` returned.
    public private(set) var port = 0

    public init(host: String, port: Int, eventLoop: EventLoop, maxMessageBytes: Int, pingSeconds: Int, idleTimeoutSeconds: Int) {
        context = LWSContext(role: .server(host: host, port: port), eventLoop: eventLoop)
        context.keepalive = (pingSeconds, idleTimeoutSeconds)
        self.maxMessageBytes = maxMessageBytes
        context.handler = self
    }

    /// Binds the listening socket.
    public func start() throws {
        try context.open()
        port = context.listenPort
    }

    /// Serves until `stop()`.
    public func run() {
        context.run()
        lingerer.stop()
    }

    /// Safe from any thread.
    public func stop() {
        context.perform { [context] in context.stop() }
    }

    public func callback(_ socket: LWSSocket, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            guard socket.header(WSI_TOKEN_GET_URI) == "/" else {
                socket.refuse(status: Int(HTTP_STATUS_NOT_FOUND.rawValue))
                return 1
            }
            echoes[socket.key] = Echo(socket: socket, maxMessageBytes: maxMessageBytes)
            return 0
        case LWS_CALLBACK_ESTABLISHED:
            echoes[socket.key]?.established = true
            return 0
        case LWS_CALLBACK_RECEIVE:
            guard let echo = echoes[socket.key] else { return -1 }
            return echo.receive(input, len)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let echo = echoes[socket.key] else { return -1 }
            return echo.flush()
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            echoes[socket.key]?.peerClosed = true
            return 0
        case LWS_CALLBACK_CLOSED:
            // Unless the peer closed first, it has yet to read our close frame and answer it.
            if let echo = echoes.removeValue(forKey: socket.key) { lingerer.linger(socket.fd, always: !echo.peerClosed) }
            return 0
        case LWS_CALLBACK_CLOSED_HTTP:
            lingerer.linger(socket.fd)
            if echoes[socket.key]?.established != true { echoes[socket.key] = nil }
            return 0
        default:
            return lws_callback_http_dummy(socket.wsi, reason, nil, input, len)
        }
    }
}

/// One echoing WebSocket. Service thread only.
private final class Echo {
    let socket: LWSSocket
    var assembler: FrameAssembler
    var queue: [(frame: Frame, binary: Bool)] = []
    var close: (code: UInt16, reason: String)?
    /// The upgrade completed (until then, a failed upgrade ends with `CLOSED_HTTP`).
    var established = false
    /// The peer sent its close frame first.
    var peerClosed = false

    init(socket: LWSSocket, maxMessageBytes: Int) {
        self.socket = socket
        assembler = FrameAssembler(limit: maxMessageBytes)
    }

    func receive(_ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        switch socket.receive(input, len, into: &assembler) {
        case nil:
            return 0
        case .tooLarge?:
            close = (CloseCode.messageTooBig, "message too large")
        case .message(let bytes, let binary)?:
            queue.append((Frame(payload: bytes), binary))
        }
        socket.requestWritable()
        return 0
    }

    /// One message per writable callback, then the close, if one is due.
    func flush() -> Int32 {
        if !queue.isEmpty {
            let (frame, binary) = queue.removeFirst()
            guard socket.write(frame, mode: binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT) else { return -1 }
            if !queue.isEmpty || close != nil { socket.requestWritable() }
            return 0
        }
        if let close { return socket.closeWhenFlushed(code: close.code, reason: close.reason) }
        return 0
    }
}
