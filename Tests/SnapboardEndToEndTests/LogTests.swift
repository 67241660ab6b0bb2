import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    @Suite("Structured logs", .serialized)
    struct LogTests {
        /// The server's standard error after a session: a snap, a close, an unload (unless `unload` is false:
        /// then the canvas is still loaded at the shutdown), a shutdown.
        static func session(_ arguments: [String], unload: Bool = true) throws -> String {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-log-\(UUID().uuidString).txt").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let server = try ServerProcess(["--idle-unload", "1"] + arguments, errorLog: log)
            let ann = try TestClient(server.url("logged", "client=ann-1"))
            ann.op("s1", "snap", #""x":100,"y":100"#)
            #expect(ann.pump { $0.all("ack").count == 1 })
            ann.close()
            if unload { try waitFor { try httpGet(port: server.port, "/healthz").body.contains(#""canvases":0"#) } }
            #expect(server.terminate() == 0)
            return try String(contentsOfFile: log, encoding: .utf8)
        }

        @Test("--log-format json writes one JSON object a line: connections opened and closed, canvases loaded and unloaded, the shutdown")
        func json() throws {
            let text = try Self.session(["--log-format", "json", "--log-level", "info"])
            let lines = text.split(separator: "\n")
            let events = try lines.map { try JSONValue.parse(Array($0.utf8)) }
            #expect(!events.isEmpty && events.allSatisfy { $0["time"] != nil && $0["level"] != nil && $0["label"] != nil })
            func event(_ message: String) -> JSONValue? { events.first { $0["message"] == .string(message) } }
            let opened = try #require(event("connection opened"))
            #expect(opened["canvas"] == .string("logged") && opened["client"] == .string("ann-1") && opened["remote"] == .string("127.0.0.1"))
            let closed = try #require(event("connection closed"))
            #expect(closed["session"] == opened["session"] && closed["by"] == .string("client") && closed["code"] == .string("1000"))
            if case .string(let seconds)? = closed["seconds"] { #expect(Double(seconds).map { $0 >= 0 && $0 < 60 } == true) } else { Issue.record("no duration") }
            #expect(event("canvas loaded")?["seq"] == .string("0"))
            #expect(event("canvas unloaded")?["seq"] == .string("1"))
            #expect(event("stopped") != nil)
            if case .string(let time)? = opened["time"] { #expect(time.hasSuffix("Z") && time.count == 24) } else { Issue.record("no time") }
        }

        @Test("--log-level picks what is written: warning drops the per-connection lines, debug adds the shutdown's checkpoints")
        func levels() throws {
            let quiet = try Self.session(["--log-level", "warning"])
            #expect(!quiet.contains("connection opened"))
            let chatty = try Self.session(["--log-level", "debug"], unload: false)
            #expect(chatty.contains("connection opened") && chatty.contains("canvas loaded"))
            #expect(chatty.contains("canvas checkpointed for the shutdown"))
            #expect(!(try Self.session(["--log-level", "info"], unload: false)).contains("canvas checkpointed"))
            #expect(try runServerCommand(["--log-format", "xml", "--port", "0"], withErrors: true).status == 64)
        }

        @Test("A peer connecting over and over cannot flood the log: connection events stop at 200 a second, and a line counts the rest")
        func connectionEventsAreBounded() throws {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-flood-\(UUID().uuidString).txt").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let server = try ServerProcess(["--log-level", "info", "--max-connections-per-ip", "2000"], errorLog: log)
            let started = Date()
            var sockets: [Int32] = []
            for _ in 0..<600 {
                let fd = try connectLoopback(port: server.port)
                // Spread over 60 canvases, so the joins do not all tell one room of 600 about each other.
                sendUpgrade(fd, path: "/v1/canvases/flood-\(sockets.count % 60)?revision=2")
                sockets.append(fd)
            }
            try waitFor { try httpGet(port: server.port, "/healthz").body.contains(#""connections":600"#) }
            let elapsed = Date().timeIntervalSince(started)
            for fd in sockets { close(fd) }
            try waitFor { try httpGet(port: server.port, "/healthz").body.contains(#""connections":0"#) }
            // One more, a second later, writes the count of what was left out.
            usleep(1_100_000)
            let late = try TestClient(server.url("flood"))
            late.close()
            #expect(server.terminate() == 0)
            let text = try String(contentsOfFile: log, encoding: .utf8)
            let opened = text.split(separator: "\n").filter { $0.contains("connection opened") }.count
            #expect(opened <= 200 * (Int(elapsed) + 2), "\(opened) lines in \(elapsed) s")
            #expect(text.contains("log lines left out"))
        }
    }
}
