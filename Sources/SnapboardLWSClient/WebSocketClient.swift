import CLibWebSockets
import Dispatch
import Foundation
import SnapboardLock

/// A WebSocket client for one connection: a `WebSocketLoop` of its own, with a blocking `next`.
/// Other threads call `send` and `next`; the loop's service thread is the only one that touches
/// libwebsockets.
///
/// The terminal client and the end-to-end tests connect through this type; the load tool puts its
/// many connections on one `WebSocketLoop` directly.
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

    public let host: String
    public let port: Int
    public let path: String
    /// `wss://`: TLS, the server's certificate and name verified.
    public let secure: Bool

    private let loop: WebSocketLoop
    private let events = Locked([Event]())
    private let ready = DispatchSemaphore(value: 0)
    /// Service thread only.
    private var connection: WebSocketConnection?

    /// A client for `ws://host:port/path?query` or `wss://…`; a `wss://` server is verified against
    /// `caFile` (a PEM file of trusted certificates), or the system's trust store when it is nil.
    public init(url: String, caFile: String? = nil) throws {
        let address = try WebSocketAddress(url: url)
        (host, port, path, secure) = (address.host, address.port, address.path, address.secure)
        loop = WebSocketLoop(tls: secure ? ClientTLS(caFile: caFile) : nil)
    }

    /// Connects and waits for the upgrade. Throws when it fails or takes longer than `timeout` seconds.
    public func connect(timeout: Double = 5) throws {
        loop.delegate = self
        try loop.start(name: "snapboard-ws-client")
        loop.perform { [self] loop in connection = loop.connect(host: host, port: port, path: path, secure: secure) }
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
        loop.perform { [self] loop in
            if let connection { loop.send(connection, bytes, binary: binary, fragments: fragments) }
        }
    }

    /// The next event, waiting up to `timeout` seconds.
    public func next(timeout: Double) -> Event? {
        guard ready.wait(timeout: .now() + timeout) == .success else { return nil }
        return events.withLock { $0.removeFirst() }
    }

    /// Closes with `code` after what is queued, and stops the service thread.
    public func close(code: UInt16 = 1000, reason: String = "") {
        loop.perform { [self] loop in
            if let connection, connection.isOpen { loop.close(connection, code: code, reason: reason) } else { loop.stop() }
        }
    }

    /// Drops the connection without a closing handshake, like a crashed client.
    public func abort() { close(code: 0) }

    private func push(_ event: Event) {
        events.withLock { $0.append(event) }
        ready.signal()
    }
}

extension WebSocketClient: WebSocketLoopDelegate {
    public func opened(_ connection: WebSocketConnection) { push(.open) }

    public func received(_ connection: WebSocketConnection, _ message: [UInt8], binary: Bool) {
        push(.message(message, binary: binary))
    }

    public func closed(_ connection: WebSocketConnection, code: UInt16?, reason: String) {
        push(.closed(code: code, reason: reason))
        loop.stop()
    }

    public func failed(_ connection: WebSocketConnection, _ why: String) {
        push(.failed(why))
        loop.stop()
    }

    public func timerFired() {}
}
