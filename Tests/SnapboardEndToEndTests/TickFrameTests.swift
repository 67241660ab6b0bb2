import Foundation
import SnapboardLWSClient
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    /// What the server sends a client between ticks leaves with the next tick's frame (P2).
    @Suite("A client's messages leave with the tick", .serialized)
    struct TickFrameTests {
        /// The next message `socket` receives, decoded; nil when none comes within 5 s.
        static func nextMessage(_ socket: WebSocketClient) -> JSONValue? {
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                guard case .message(let bytes, _)? = socket.next(timeout: 0.05) else { continue }
                return try? JSONValue.parse(bytes)
            }
            return nil
        }

        @Test("[P2] A gesture's begin reaches a watcher in one frame: the lease it takes and the live delta of the tick, not the lease first on its own")
        func leaseWaitsForTheTick() throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("tick-frames", "client=ann&name=ann&revision=2"))
            _ = ann.expect(type: "welcome")
            let watcher = try WebSocketClient(url: server.url("tick-frames", "name=watcher&revision=2"))
            try watcher.connect()
            ann.op("s", "snap", #""x":256,"y":192,"shapeId":"q","shape":{"kind":"roundedRect","w":64,"h":64}"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("s") }
            // Everything before the snap's delta (the welcome) is read first.
            var committed = false
            while !committed, let message = Self.nextMessage(watcher) {
                let items: [JSONValue] = if case .array(let items) = message { items } else { [message] }
                committed = items.contains { $0["type"] == .string("delta") && $0["seq"] == .number(1) }
            }
            try #require(committed)

            ann.op("b", "move", #""shape":"q","phase":"begin""#)
            let frame = try #require(Self.nextMessage(watcher))
            guard case .array(let items) = frame else {
                Issue.record("the lease went out in a frame of its own: \(frame)")
                return
            }
            let lease = items.firstIndex { $0["type"] == .string("presence") && $0["event"] == .string("lease") }
            let live = items.firstIndex { $0["type"] == .string("delta") && $0["live"] == .bool(true) }
            #expect(lease != nil && live != nil && lease! < live!, "\(items)")
        }
    }
}
