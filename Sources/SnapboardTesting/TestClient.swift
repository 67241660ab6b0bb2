import Foundation
import SnapboardLWSClient
import SnapboardProtocol

/// A protocol-level test client: a `WebSocketClient` plus JSON decoding, batch splitting and waiting. What
/// goes wrong on the way (a message that is not JSON, a failed connection) is kept in `problems`, for the
/// test framework's side to report (the tests' `pump` and `expect` record each as an issue).
public final class TestClient {
    public let socket: WebSocketClient
    public private(set) var received: [JSONValue] = []
    /// How many of `received` a `take` has passed over.
    public private(set) var cursor = 0
    public private(set) var closed: (code: UInt16?, reason: String)?
    /// What went wrong while reading, oldest first.
    public private(set) var problems: [String] = []

    public init(_ url: String) throws {
        socket = try WebSocketClient(url: url)
        try socket.connect()
    }

    /// A test client on `socket`, which the caller connects.
    public init(socket: WebSocketClient) {
        self.socket = socket
    }

    public func send(_ text: String) { socket.send(text) }

    public func op(_ id: String, _ kind: String, _ fields: String = "") {
        socket.send(#"{"type":"op","id":"\#(id)","op":"\#(kind)""# + (fields.isEmpty ? "" : "," + fields) + "}")
    }

    /// Reads events for up to `timeout` seconds, appending decoded messages; stops early once `until` holds.
    @discardableResult
    public func read(timeout: Double = 5, until: (TestClient) -> Bool = { _ in false }) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if until(self) { return true }
            guard let event = socket.next(timeout: min(0.05, max(0, deadline.timeIntervalSinceNow))) else { continue }
            switch event {
            case .message(let bytes, _):
                guard let value = try? JSONValue.parse(bytes) else { problems.append("server sent non-JSON"); continue }
                if case .array(let items) = value { received += items } else { received.append(value) }
            case .closed(let code, let reason):
                closed = (code, reason)
                return until(self)
            case .failed(let why):
                problems.append("connection failed: \(why)")
                return false
            case .open:
                break
            }
        }
        return until(self)
    }

    /// Waits for the first message not yet taken that satisfies `match`, and takes everything before it;
    /// nil when none came.
    public func take(timeout: Double = 5, _ match: (JSONValue) -> Bool) -> JSONValue? {
        var found: JSONValue?
        read(timeout: timeout) { c in
            if let i = c.received[c.cursor...].firstIndex(where: match) {
                found = c.received[i]
                c.cursor = i + 1
                return true
            }
            return false
        }
        return found
    }

    public func all(_ type: String) -> [JSONValue] { received.filter { $0["type"] == .string(type) } }

    public func close() { socket.close() }
}
