import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    @Suite("Resume after a restart or an unload (P16)", .serialized)
    struct ResumeAfterRestartTests {
        /// Six commits on `canvas`; returns the committed deltas another client saw, by seq.
        static func sixCommits(_ server: ServerProcess, _ canvas: String) throws -> [JSONValue] {
            let ann = try TestClient(server.url(canvas, "client=ann"))
            let watcher = try TestClient(server.url(canvas))
            _ = watcher.expect(type: "welcome")
            ann.op("o1", "snap", #""x":100,"y":100,"shapeId":"a""#)
            ann.op("o2", "snap", #""x":400,"y":100,"shapeId":"b","shape":{"kind":"star"}"#)
            ann.op("o3", "move", #""shape":"a","dx":40,"dy":8"#)
            ann.op("o4", "scale", #""shape":"b","factor":1.5,"radians":0.2"#)
            ann.op("o5", "rotate", #""shape":"a","radians":1"#)
            ann.op("o6", "snap", #""x":700,"y":500,"shapeId":"c""#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("o6") }
            watcher.pump(timeout: 0.2)
            let deltas = watcher.all("delta").filter { $0["live"] == .bool(false) }
            ann.close()
            watcher.close()
            return deltas
        }

        /// Connects with `since` and checks the resume: no shapes, then exactly the deltas after `since`.
        static func expectResume(_ server: ServerProcess, _ canvas: String, since: Int, _ sent: [JSONValue]) throws {
            let client = try TestClient(server.url(canvas, "since=\(since)"))
            let welcome = try #require(client.expect(type: "welcome"))
            #expect(welcome["resumed"] == .bool(true), "since=\(since)")
            #expect(welcome["shapes"] == .array([]))
            client.pump(timeout: 0.3)
            let resumed = client.all("delta")
            #expect(resumed.map { $0["seq"] } == sent[since...].map { $0["seq"] })
            #expect(resumed.map { $0["shapes"] } == sent[since...].map { $0["shapes"] }, "the deltas as they were first sent")
            client.close()
        }

        @Test("[P16] After SIGTERM and a restart on the same file, since=3 and since=0 resume with the deltas after them")
        func afterShutdown() throws {
            let first = try ServerProcess(["--idle-unload", "1"])
            let sent = try Self.sixCommits(first, "deploy")
            #expect(sent.count == 6)
            #expect(first.terminate() == 0)
            let second = try ServerProcess(["--idle-unload", "1"], data: first.dataPath)
            try Self.expectResume(second, "deploy", since: 3, sent)
            try Self.expectResume(second, "deploy", since: 0, sent)
        }

        @Test("[P16] After the canvas unloads, a client still resumes")
        func afterUnload() throws {
            let server = try ServerProcess(["--idle-unload", "1"])
            let sent = try Self.sixCommits(server, "quiet")
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, try httpGet(port: server.port, "/healthz").body.contains(#""canvases":1"#) { usleep(100_000) }
            #expect(try httpGet(port: server.port, "/healthz").body.contains(#""canvases":0"#), "the canvas unloaded")
            try Self.expectResume(server, "quiet", since: 3, sent)
        }

        @Test("[P16] After SIGKILL and a restart, a client resumes too")
        func afterCrash() throws {
            let first = try ServerProcess()
            let sent = try Self.sixCommits(first, "crash")
            kill(first.process.processIdentifier, SIGKILL)
            first.process.waitUntilExit()
            let second = try ServerProcess(data: first.dataPath)
            try Self.expectResume(second, "crash", since: 3, sent)
        }
    }
}
