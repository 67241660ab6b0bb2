import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

extension EndToEnd {
    @Suite("Canvases kept in SQLite across restarts", .serialized)
    struct StorageTests {
        @Test("A canvas saved at a graceful shutdown is there after a restart on the same file")
        func survivesRestart() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-restart-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("data.sqlite").path
            let first = try ServerProcess(data: path)
            let client = try TestClient(first.url("keep"))
            for i in 1...3 { client.op("k\(i)", "snap", #""x":\#(i * 100),"y":100"#) }
            client.pump { $0.all("ack").count == 3 }
            let before = try Replica.shapes(ofSnapshot: httpGet(port: first.port, "/v1/canvases/keep").body)
            #expect(first.terminate() == 0)
            let second = try ServerProcess(data: path)
            let after = try httpGet(port: second.port, "/v1/canvases/keep").body
            #expect(after.contains(#""seq":3"#))
            #expect(try Replica.shapes(ofSnapshot: after) == before)
        }

        @Test("GET /v1/canvases lists stored canvases in id order, by prefix and page, loading none; with tokens only the admin may")
        func listing() throws {
            let server = try ServerProcess(["--idle-unload", "1"])
            for (canvas, snaps) in [("team-b", 1), ("team-a", 2), ("other", 1)] {
                let client = try TestClient(server.url(canvas))
                for n in 0..<snaps { client.op("\(canvas)\(n)", "snap", #""x":\#(100 + 100 * n),"y":100"#) }
                #expect(client.pump { $0.all("ack").count == snaps })
                client.close()
            }
            func list(_ query: String = "") throws -> JSONValue {
                try JSONValue.parse(Array(try httpGet(port: server.port, "/v1/canvases" + query).body.utf8))
            }
            func ids(_ body: JSONValue) -> [JSONValue] {
                if case .array(let items)? = body["canvases"] { items.map { $0["id"] ?? .null } } else { [] }
            }
            let all = try list()
            #expect(ids(all) == [.string("other"), .string("team-a"), .string("team-b")])
            #expect(all["canvases"]?[1]?["seq"] == .number(2) && all["canvases"]?[1]?["shapes"] == .number(2))
            let firstPage = try list("?prefix=team-&limit=1")
            #expect(ids(firstPage) == [.string("team-a")] && firstPage["next"] == .string("team-a"))
            let secondPage = try list("?prefix=team-&limit=1&after=team-a")
            #expect(ids(secondPage) == [.string("team-b")] && secondPage["next"] == .null)
            #expect(try httpGet(port: server.port, "/v1/canvases?limit=0").status == 400)
            #expect(try httpGet(port: server.port, "/v1/canvases?prefix=no%20spaces").status == 400)
            // Once unloaded, they are still listed, and listing loads none of them.
            try waitFor { try httpGet(port: server.port, "/healthz").body.contains(#""canvases":0"#) }
            let unloaded = try list()
            #expect(ids(unloaded).count == 3 && unloaded["canvases"]?[0]?["loaded"] == .bool(false))
            if case .number(let at)? = unloaded["canvases"]?[0]?["changedAt"] {
                #expect(abs(at - Date().timeIntervalSince1970) < 60)
            } else {
                Issue.record("no changedAt")
            }
            #expect(try httpGet(port: server.port, "/healthz").body.contains(#""canvases":0"#))
            // A server that requires tokens lists only to the admin token.
            let guarded = try ServerProcess(["--auth-secret", AccessTests.secret, "--admin-token", "the-admin-token-of-32-characters-or-more"])
            #expect(try httpGet(port: guarded.port, "/v1/canvases").status == 401)
            #expect(try httpGet(port: guarded.port, "/v1/canvases", headers: ["Authorization: Bearer the-admin-token-of-32-characters-or-more"]).status == 200)
            let noAdmin = try ServerProcess(["--auth-secret", AccessTests.secret])
            #expect(try httpGet(port: noAdmin.port, "/v1/canvases").status == 401)
        }

        @Test("export prints a canvas as JSON and import restores it into another database")
        func exportImport() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-backup-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let source = directory.appendingPathComponent("a.sqlite").path, target = directory.appendingPathComponent("b.sqlite").path
            let backup = directory.appendingPathComponent("backup.json").path
            let server = try ServerProcess(data: source)
            let client = try TestClient(server.url("backup"))
            client.op("b1", "snap", #""x":100,"y":100,"shape":{"kind":"polygon","sides":7}"#)
            client.op("b2", "snap", #""x":300,"y":200,"shapeId":"t","shape":{"kind":"triangle"}"#)
            client.op("b3", "rotate", #""shape":"t","radians":0.5"#)
            client.pump { $0.all("ack").count == 3 }
            let live = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/backup").body)
            // Export while the server runs: the log holds every acked op.
            #expect(try runServerCommand(["export", "--data", source, "--canvas", "backup", "--output", backup]).status == 0)
            // An import into the file a server has, or a second server on it, is refused, and changes nothing.
            let busy = try runServerCommand(["import", "--data", source, "--input", backup], withErrors: true)
            #expect(busy.status != 0 && busy.output.contains("is in use by another snapboard-server or import"), "\(busy.output)")
            #expect(throws: ServerStartError.self) { try ServerProcess(data: source) }
            #expect(try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/backup").body) == live)
            _ = server.terminate()
            let imported = try runServerCommand(["import", "--data", target, "--input", backup])
            #expect(imported.status == 0 && imported.output.contains("seq 3"))
            let restored = try ServerProcess(data: target)
            #expect(try Replica.shapes(ofSnapshot: httpGet(port: restored.port, "/v1/canvases/backup").body) == live)
            #expect(try runServerCommand(["export", "--data", target, "--canvas", "missing"]).status != 0)
        }

        @Test("A file that is not a SQLite database stops startup with a clear message and is left as it was")
        func refusesGarbage() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-garbage-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("data.sqlite").path
            let garbage = Data(repeating: 0x5A, count: 4096)
            try garbage.write(to: URL(fileURLWithPath: path))
            #expect(throws: ServerStartError.self) { try ServerProcess(data: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        }
    }
}

extension EndToEnd {
    @Suite("A failing disk", .serialized)
    struct FailingDiskTests {
        @Test("When writes fail, ops are refused with unavailable and rolled back; when they succeed again, the server carries on")
        func diskFull() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-full-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let fault = directory.appendingPathComponent("disk-full").path
            let server = try ServerProcess(["--fault-file", fault, "--ops-per-second", "100000"], data: directory.appendingPathComponent("data.sqlite").path)
            let writer = try TestClient(server.url("full", "client=w"))
            let watcher = try TestClient(server.url("full"))
            for i in 0..<3 { writer.op("ok\(i)", "snap", #""x":\#(100 + i * 100),"y":100,"shapeId":"ok\#(i)""#) }
            writer.pump { $0.all("ack").count == 3 }
            _ = FileManager.default.createFile(atPath: fault, contents: nil)
            // The disk is full: keep adding shapes until the server says it cannot save them.
            var sent = 0
            while sent < 2_000, !writer.pump(timeout: 0.01, until: { $0.all("reject").contains { $0["code"] == .string("unavailable") } }) {
                for _ in 0..<20 {
                    writer.op("f\(sent)", "snap", #""x":\#(sent % 1000),"y":300,"shapeId":"f\#(sent)","shape":{"kind":"fractal","depth":6}"#)
                    sent += 1
                }
            }
            #expect(writer.all("reject").contains { $0["code"] == .string("unavailable") }, "no write failed after \(sent) ops")
            // Everyone is rolled back to what is durable with a fresh welcome.
            _ = writer.expect(type: "welcome") { _ in writer.all("welcome").count >= 2 }
            watcher.pump(timeout: 3) { $0.all("welcome").count >= 2 }
            try FileManager.default.removeItem(atPath: fault)
            writer.pump(timeout: 2)
            let ackedBefore = Set(writer.all("ack").compactMap { m -> String? in if case .string(let id)? = m["id"] { id } else { nil } })
            let refused = Set(writer.all("reject").compactMap { m -> String? in if case .string(let id)? = m["id"] { id } else { nil } })
            writer.op("after", "snap", #""x":500,"y":600,"shapeId":"after""#)
            #expect(writer.expect(type: "ack") { $0["id"] == .string("after") } != nil)
            let shapes = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/full").body)
            for id in ackedBefore { #expect(shapes[id] != nil, "acked \(id) is missing") }
            for id in refused { #expect(shapes[id] == nil, "refused \(id) is on the canvas") }
            #expect(shapes["after"] != nil)
            // Every op sent is answered exactly once, the one whose write failed included (P6, P7).
            let answers = (writer.all("ack") + writer.all("reject")).compactMap { m -> String? in if case .string(let id)? = m["id"] { id } else { nil } }
            let sentIDs = (0..<3).map { "ok\($0)" } + (0..<sent).map { "f\($0)" } + ["after"]
            #expect(answers.count == sentIDs.count && Set(answers) == Set(sentIDs), "\(sentIDs.count) ops, \(answers.count) answers")
            let watcherConverged = Replica(watcher.received).shapes == shapes || watcher.pump(timeout: 3) { Replica($0.received).shapes == shapes }
            #expect(watcherConverged)
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
        }
    }
}
