import Foundation
import SnapboardCore
import SnapboardProtocol

/// One logical connection to a canvas: a transport plus the replica and pending ops, reconnecting with
/// backoff and resuming with `client` and `since`, resending what was never answered. Driven from one
/// thread, by `pump`.
public final class CanvasSession {
    public let base: String
    public let clientID: String
    public private(set) var replica = CanvasReplica()
    public private(set) var pending: PendingOps
    /// Opens a transport to a URL (with `client` and `since` already in it), or throws.
    private let connectTransport: (String) throws -> CanvasTransport
    private var socket: CanvasTransport?
    private var policy = ReconnectPolicy()
    /// No reconnect is tried before this: the backoff holds across `pump` calls, however short they are.
    private var nextAttempt = Date.distantPast
    private var rng = SystemRandomNumberGenerator()
    /// Called with every message from the server, in order.
    public var onMessage: (JSONValue) -> Void = { _ in }
    /// Called when the connection goes down or comes back.
    public var onState: (SessionState) -> Void = { _ in }
    public private(set) var state = SessionState.connecting
    /// Every message received, in order.
    public private(set) var received: [JSONValue] = []
    /// The last ping's round trip, in milliseconds.
    public private(set) var lastRoundTrip: Double?

    public init(url: String, clientID: String, transport: @escaping (String) throws -> CanvasTransport) {
        base = url
        self.clientID = clientID
        pending = PendingOps(prefix: clientID)
        connectTransport = transport
    }

    private var url: String {
        let separator = base.contains("?") ? "&" : "?"
        return base + separator + "client=\(clientID)&" + CanvasReplica.revisionQuery + (replica.seq >= 0 ? "&" + replica.resumeQuery : "")
    }

    /// Connects, retrying with backoff for up to `timeout` seconds; resends what was never answered.
    public func connect(timeout: Double = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let wait = nextAttempt.timeIntervalSinceNow
            if wait > 0 {
                guard wait < deadline.timeIntervalSinceNow else { throw ConnectError.backingOff }
                Thread.sleep(forTimeInterval: wait)
            }
            do {
                let socket = try connectTransport(url)
                self.socket = socket
                policy.connected()
                nextAttempt = .distantPast
                setState(.connected)
                for op in pending.toResend() { socket.send(op.text) }
                return
            } catch {
                nextAttempt = Date() + policy.nextDelay(random: Double.random(in: 0..<1, using: &rng))
                setState(.reconnecting)
                guard Date() < deadline else { throw error }
            }
        }
    }

    private func setState(_ s: SessionState) {
        state = s
        onState(s)
    }

    /// Sends an op, with a fresh id, and tracks it until it is answered. Returns the id.
    @discardableResult
    public func send(_ op: CanvasOp) -> String {
        let id = pending.makeID()
        let text = String(decoding: ClientMessage.op(id: id, op).encode(), as: UTF8.self)
        pending.sent(id: id, text: text, commits: op.commits)
        socket?.send(text)
        return id
    }

    /// Measures the round trip: the pong's `t` is this moment, in milliseconds.
    public func ping() {
        socket?.send(String(decoding: ClientMessage.ping(t: .number(Date().timeIntervalSince1970 * 1000)).encode(), as: UTF8.self))
    }

    /// Handles events for up to `timeout` seconds, or until `until` holds; reconnects when the connection drops.
    @discardableResult
    public func pump(timeout: Double, until: () -> Bool = { false }) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !until() {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            guard let socket else {
                // Reconnect when the backoff allows; meanwhile wait a little instead of spinning.
                do { try connect(timeout: left) } catch { Thread.sleep(forTimeInterval: min(max(left, 0), 0.05)) }
                continue
            }
            switch socket.receive(timeout: min(left, 0.05)) {
            case .message(let bytes)?:
                guard let value = try? JSONValue.parse(bytes) else { continue }
                let messages: [JSONValue] = if case .array(let items) = value { items } else { [value] }
                for m in messages { handle(m) }
            case .closed?:
                self.socket = nil
                setState(.reconnecting)
            case nil:
                break
            }
        }
        return true
    }

    private func handle(_ m: JSONValue) {
        replica.apply(m)
        received.append(m)
        switch m["type"] {
        case .string("ack")?, .string("reject")?:
            if case .string(let id)? = m["id"] { pending.answered(id) }
        case .string("error")?:
            if case .string(let id)? = m["id"] { pending.answered(id) }
        case .string("pong")?:
            if case .number(let t)? = m["t"] { lastRoundTrip = Date().timeIntervalSince1970 * 1000 - t }
        default:
            break
        }
        onMessage(m)
    }

    public func close() { socket?.disconnect() }
}
