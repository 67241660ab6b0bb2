import Foundation
import SnapboardClient
import SnapboardCore
import SnapboardProtocol
import SnapboardWebSocket

/// One logical connection to a canvas: a `WebSocketClient` plus the replica and pending ops, reconnecting
/// with backoff and resuming with `client` and `since`. Driven from one thread, by `pump`.
final class ClientSession {
    let base: String
    let clientID: String
    var replica = CanvasReplica()
    var pending: PendingOps
    private var socket: WebSocketClient?
    private var policy = ReconnectPolicy()
    private var rng = SystemRandomNumberGenerator()
    /// Called with every message from the server, in order.
    var onMessage: (JSONValue) -> Void = { _ in }
    /// Called when the connection goes down or comes back.
    var onState: (String) -> Void = { _ in }
    private(set) var state = "connecting"
    /// Every message received, in order.
    private(set) var received: [JSONValue] = []
    private(set) var lastRoundTrip: Double?

    init(url: String, clientID: String) {
        base = url
        self.clientID = clientID
        pending = PendingOps(prefix: clientID)
    }

    private var url: String {
        let separator = base.contains("?") ? "&" : "?"
        return base + separator + "client=\(clientID)" + (replica.seq >= 0 ? "&since=\(replica.seq)" : "")
    }

    /// Connects, retrying with backoff for up to `timeout` seconds; resends what was never answered.
    func connect(timeout: Double = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            do {
                let socket = try WebSocketClient(url: url)
                try socket.connect(timeout: max(0.5, deadline.timeIntervalSinceNow))
                self.socket = socket
                policy.connected()
                setState("connected")
                for op in pending.toResend() { socket.send(op.text) }
                return
            } catch {
                guard Date() < deadline else { throw error }
                setState("reconnecting")
                Thread.sleep(forTimeInterval: min(policy.nextDelay(random: Double.random(in: 0..<1, using: &rng)), deadline.timeIntervalSinceNow))
            }
        }
    }

    private func setState(_ s: String) {
        state = s
        onState(s)
    }

    /// Sends an op, with a fresh id, and tracks it until it is answered. Returns the id.
    @discardableResult
    func send(op kind: String, _ fields: String = "", commits: Bool) -> String {
        let id = pending.makeID()
        let text = #"{"type":"op","id":"\#(id)","op":"\#(kind)""# + (fields.isEmpty ? "" : "," + fields) + "}"
        pending.sent(id: id, text: text, commits: commits)
        socket?.send(text)
        return id
    }

    func ping() {
        socket?.send(#"{"type":"ping","t":\#(Date().timeIntervalSince1970 * 1000)}"#)
    }

    /// Handles events for up to `timeout` seconds, or until `until` holds; reconnects when the connection drops.
    @discardableResult
    func pump(timeout: Double, until: () -> Bool = { false }) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !until() {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            guard let socket else {
                try? connect(timeout: left)
                continue
            }
            switch socket.next(timeout: min(left, 0.05)) {
            case .message(let bytes, _)?:
                guard let value = try? JSONValue.parse(bytes) else { continue }
                let messages: [JSONValue] = if case .array(let items) = value { items } else { [value] }
                for m in messages { handle(m) }
            case .closed?, .failed?:
                self.socket = nil
                setState("reconnecting")
            case .open?, nil:
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

    func close() { socket?.close() }
}
