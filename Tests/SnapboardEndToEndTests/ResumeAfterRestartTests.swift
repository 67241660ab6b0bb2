import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

extension EndToEnd {
    @Suite("Resume after a restart or an unload (P16)", .serialized)
    struct ResumeAfterRestartTests {
        /// Six commits on `canvas`; returns the committed deltas another client saw, by seq, and the run
        /// (`epoch`) they belong to.
        static func sixCommits(_ server: ServerProcess, _ canvas: String) throws -> (deltas: [JSONValue], epoch: String) {
            let ann = try TestClient(server.url(canvas, "client=ann"))
            let watcher = try TestClient(server.url(canvas))
            guard case .string(let epoch)? = watcher.expect(type: "welcome")?["epoch"] else { throw CancellationError() }
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
            return (deltas, epoch)
        }

        /// Connects with `since` and checks the resume: no shapes, then exactly the deltas after `since`.
        static func expectResume(_ server: ServerProcess, _ canvas: String, since: Int, _ sent: (deltas: [JSONValue], epoch: String)) throws {
            let client = try TestClient(server.url(canvas, "since=\(since)&epoch=\(sent.epoch)"))
            let welcome = try #require(client.expect(type: "welcome"))
            #expect(welcome["resumed"] == .bool(true), "since=\(since)")
            #expect(welcome["shapes"] == .array([]))
            client.pump(timeout: 0.3)
            let resumed = client.all("delta")
            #expect(resumed.map { $0["seq"] } == sent.deltas[since...].map { $0["seq"] })
            #expect(resumed.map { $0["shapes"] } == sent.deltas[since...].map { $0["shapes"] }, "the deltas as they were first sent")
            client.close()
        }

        @Test("[P16] After SIGTERM and a restart on the same file, since=3 and since=0 resume with the deltas after them")
        func afterShutdown() throws {
            let first = try ServerProcess(["--idle-unload", "1"])
            let sent = try Self.sixCommits(first, "deploy")
            #expect(sent.deltas.count == 6)
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

        @Test("[P16] A crash after a delta went out but before it was durable: its watcher gets a snapshot, not a wrong base, and converges")
        func crashAfterBroadcast() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-hold-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let hold = directory.appendingPathComponent("fault").path
            let data = directory.appendingPathComponent("data.sqlite").path
            let first = try ServerProcess(["--fault-file", hold], data: data)
            let ann = try TestClient(first.url("fork", "client=ann"))
            let watcher = try TestClient(first.url("fork"))
            guard case .string(let firstRun)? = watcher.expect(type: "welcome")?["epoch"] else { throw CancellationError() }
            for i in 1...3 { ann.op("a\(i)", "snap", #""x":\#(i * 100),"y":100"#) }
            _ = ann.expect(type: "ack") { $0["id"] == .string("a3") }
            // The disk stalls: seq 4 is ordered and broadcast, never acked, never durable; then the crash.
            try Data("hold".utf8).write(to: URL(fileURLWithPath: hold))
            ann.op("a4", "snap", #""x":400,"y":400,"shapeId":"lost""#)
            _ = watcher.expect(type: "delta") { $0["seq"] == .number(4) }
            ann.pump(timeout: 0.3)
            #expect(ann.all("ack").count == 3, "seq 4 is not acked while it is not durable")
            kill(first.process.processIdentifier, SIGKILL)
            first.process.waitUntilExit()
            try FileManager.default.removeItem(atPath: hold)

            // The restarted server is back at seq 3; someone else commits a different seq 4 and 5.
            let second = try ServerProcess(data: data)
            let bob = try TestClient(second.url("fork", "client=bob"))
            guard case .string(let secondRun)? = bob.expect(type: "welcome")?["epoch"] else { throw CancellationError() }
            #expect(secondRun != firstRun)
            bob.op("b1", "snap", #""x":600,"y":600,"shapeId":"kept""#)
            bob.op("b2", "snap", #""x":700,"y":600"#)
            _ = bob.expect(type: "ack") { $0["id"] == .string("b2") }

            // The watcher saw the lost seq 4: resuming there would keep "lost" and skip "kept".
            let back = try TestClient(second.url("fork", "since=4&epoch=\(firstRun)"))
            let welcome = try #require(back.expect(type: "welcome"))
            #expect(welcome["resumed"] == .bool(false))
            #expect(welcome["seq"] == .number(5) && welcome["epoch"] == .string(secondRun))
            let ids: [String] = {
                guard case .array(let shapes)? = welcome["shapes"] else { return [] }
                return shapes.compactMap { if case .string(let id)? = $0["id"] { id } else { nil } }
            }()
            #expect(ids.contains("kept") && !ids.contains("lost") && ids.count == 5)
            // Its replica, rebuilt from that welcome, matches the server's canvas.
            let body = try httpGet(port: second.port, "/v1/canvases/fork").body
            #expect(try Replica.shapes(ofSnapshot: body).count == 5)
            // A client whose base both runs share (seq 3) still resumes, with the new seq 4 and 5.
            let shared = try TestClient(second.url("fork", "since=3&epoch=\(firstRun)"))
            #expect(shared.expect(type: "welcome")?["resumed"] == .bool(true))
            shared.pump(timeout: 0.3)
            #expect(shared.all("delta").map { $0["seq"] } == [.number(4), .number(5)])
            #expect(shared.all("delta").first?["ops"] == .array([.string("b1")]))
        }

        @Test("[P22] A client's undo history survives a restart: after SIGKILL, undo and redo carry on where they were")
        func undoAcrossRestart() throws {
            let first = try ServerProcess()
            let ann = try TestClient(first.url("history", "client=ann"))
            ann.op("a1", "snap", #""x":100,"y":100,"shapeId":"a""#)
            ann.op("a2", "move", #""shape":"a","dx":200,"dy":0"#)
            ann.op("a3", "snap", #""x":600,"y":400,"shapeId":"b""#)
            ann.op("a4", "undo")
            _ = ann.expect(type: "ack") { $0["id"] == .string("a4") }
            let moved = try Replica.shapes(ofSnapshot: httpGet(port: first.port, "/v1/canvases/history").body)["a"]
            #expect(moved?["x"] == .number(300), "its left edge snapped to gridline 288")
            kill(first.process.processIdentifier, SIGKILL)
            first.process.waitUntilExit()
            let second = try ServerProcess(data: first.dataPath)
            let again = try TestClient(second.url("history", "client=ann"))
            again.op("a5", "redo")
            #expect(again.expect(type: "ack") { $0["id"] == .string("a5") }?["seq"] == .number(5))
            again.op("a6", "undo")
            again.op("a7", "undo")
            _ = again.expect(type: "ack") { $0["id"] == .string("a7") }
            let shapes = try Replica.shapes(ofSnapshot: httpGet(port: second.port, "/v1/canvases/history").body)
            #expect(shapes["b"] == nil, "the redone snap is undone again")
            #expect(shapes["a"]?["x"] == .number(96), "a is back where it was created (the tap at 100 snapped to 96)")
            let other = try TestClient(second.url("history", "client=ben"))
            other.op("b1", "undo")
            #expect(other.expect(type: "reject")?["code"] == .string("nothing_to_undo"))
        }
    }
}
