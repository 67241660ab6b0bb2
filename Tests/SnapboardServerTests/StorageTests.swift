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
