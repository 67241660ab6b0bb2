import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
#endif

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
