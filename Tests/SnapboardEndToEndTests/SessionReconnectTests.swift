import Foundation
import SnapboardClient
import SnapboardProtocol
import SnapboardLWSClient
import SnapboardCore
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

extension EndToEnd {
    @Suite("CanvasSession across a server crash", .serialized)
    struct SessionReconnectTests {
        @Test("[P15, P16] A session whose server is killed reconnects with backoff, resumes with since, and resends what was never answered")
        func reconnectAfterKill() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-session-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let data = directory.appendingPathComponent("data.sqlite").path
            var server = try ServerProcess(data: data)
            let port = server.port
            let session = CanvasSession(url: server.url("survive"), clientID: "survivor") { url in
                try WebSocketClient.transport(url: url, timeout: 2)
            }
            try session.connect()
            #expect(session.pump(timeout: 5) { session.replica.seq == 0 })
            for x in [100, 200, 300] { session.send(.snap(at: Point(x: Double(x), y: 100), shapeID: nil, spec: ShapeSpec())) }
            #expect(session.pump(timeout: 5) { session.pending.ops.isEmpty })
            #expect(session.replica.seq == 3)

            // Crash the server, then send while it is down: these ops wait in the session.
            kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()
            session.pump(timeout: 0.5)
            #expect(session.state == .reconnecting)
            for x in [400, 500] { session.send(.snap(at: Point(x: Double(x), y: 100), shapeID: nil, spec: ShapeSpec())) }
            session.pump(timeout: 0.5)
            #expect(!session.pending.ops.isEmpty)

            // Same file, same port: the session finds it again on its own.
            server = try ServerProcess(["--port", String(port)], data: data)
            #expect(session.pump(timeout: 15) { session.pending.ops.isEmpty && session.replica.seq == 5 })
            #expect(session.state == .connected)
            let welcomes = session.received.filter { $0["type"] == .string("welcome") }
            #expect(welcomes.count == 2 && welcomes.last?["resumed"] == .bool(true))
            #expect(session.received.filter { $0["type"] == .string("ack") }.count == 5)
            let (_, body) = try httpGet(port: port, "/v1/canvases/survive")
            let snapshot = try JSONValue.parse(Array(body.utf8))
            guard case .array(let shapes)? = snapshot["shapes"] else { Issue.record("no shapes"); return }
            #expect(snapshot["seq"] == .number(5) && shapes.count == 5 && session.replica.shapes.count == 5)
        }
    }
}
