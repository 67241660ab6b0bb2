import SnapboardLWSClient
import SnapboardLoad
import SnapboardRawWebSocket

/// `--transport`: which client transport carries the connections; `raw` without the flag.
enum TransportChoice: String, CaseIterable {
    /// libwebsockets (`SnapboardLWSClient.WebSocketLoop`), on libev or poll (`--event-loop`).
    case lws
    /// The tool's own epoll loop (`SnapboardRawWebSocket.RawWebSocketLoop`): `ws://` only.
    case raw
}

/// A connection of whichever transport the run uses.
protocol LoadConnection: AnyObject {
    var tag: Int { get }
    var isOpen: Bool { get }
}

/// What `LoadRun` needs of a transport: both loops offer it, with the same threading rules (one thread runs
/// the connections and the delegate; other threads hand work over with `perform`).
protocol LoadTransport: AnyObject, Sendable {
    /// Starts the loop's thread, with `run` as its delegate; its first `timerFired` comes as it starts.
    func start(name: String, delegate run: LoadRun) throws
    /// Runs `work` on the loop's thread, soon; safe from any thread.
    func handOver(_ work: @escaping @Sendable () -> Void)
    func stop()
    func wait()
    // Loop thread only.
    func open(host: String, port: Int, path: String, tag: Int) -> any LoadConnection
    func write(_ bytes: [UInt8], to connection: any LoadConnection)
    func schedule(after microseconds: Int)
}

extension WebSocketConnection: LoadConnection {}
extension RawWebSocketConnection: LoadConnection {}

extension WebSocketLoop: LoadTransport {
    func start(name: String, delegate run: LoadRun) throws {
        delegate = run
        try start(name: name)
    }

    func handOver(_ work: @escaping @Sendable () -> Void) { perform { _ in work() } }

    func open(host: String, port: Int, path: String, tag: Int) -> any LoadConnection {
        connect(host: host, port: port, path: path, secure: false, tag: tag)
    }

    func write(_ bytes: [UInt8], to connection: any LoadConnection) {
        send(connection as! WebSocketConnection, bytes, binary: false, fragments: 1)
    }
}

extension RawWebSocketLoop: LoadTransport {
    func start(name: String, delegate run: LoadRun) throws {
        delegate = run
        try start(name: name)
    }

    func handOver(_ work: @escaping @Sendable () -> Void) { perform { _ in work() } }

    func open(host: String, port: Int, path: String, tag: Int) -> any LoadConnection {
        connect(host: host, port: port, path: path, tag: tag)
    }

    func write(_ bytes: [UInt8], to connection: any LoadConnection) {
        send(connection as! RawWebSocketConnection, bytes, binary: false)
    }
}

/// Both loops' delegate calls, handed to the run's own, which see only `LoadConnection`.
extension LoadRun: WebSocketLoopDelegate, RawWebSocketLoopDelegate {
    func opened(_ connection: WebSocketConnection) { connectionOpened(connection) }
    func failed(_ connection: WebSocketConnection, _ why: String) { connectionFailed(connection, why) }
    func closed(_ connection: WebSocketConnection, code: UInt16?, reason: String) { connectionClosed(connection, code: code) }
    func received(_ connection: WebSocketConnection, _ message: [UInt8], binary: Bool) {
        received(connection.tag, message, at: monotonicMicros())
    }
    func received(_ connection: WebSocketConnection, lent message: UnsafeRawBufferPointer, binary: Bool) {
        received(connection.tag, lent: message)
    }

    func opened(_ connection: RawWebSocketConnection) { connectionOpened(connection) }
    func failed(_ connection: RawWebSocketConnection, _ why: String) { connectionFailed(connection, why) }
    func closed(_ connection: RawWebSocketConnection, code: UInt16?, reason: String) { connectionClosed(connection, code: code) }
    func received(_ connection: RawWebSocketConnection, _ message: [UInt8], binary: Bool) {
        received(connection.tag, message, at: monotonicMicros())
    }
    func received(_ connection: RawWebSocketConnection, lent message: UnsafeRawBufferPointer, binary: Bool) {
        received(connection.tag, lent: message)
    }
}
