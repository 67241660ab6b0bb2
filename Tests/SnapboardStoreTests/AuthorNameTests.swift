import Foundation
import GRDB
import Testing

@testable import SnapboardCore
@testable import SnapboardStore

/// The author's name each commit keeps for history (P19), in both stores, and what a damaged or older
/// log holds instead.
@Suite("Author names in the op log")
struct AuthorNameTests {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-names-\(UUID().uuidString)/db.sqlite").path
    }

    /// Two commits: Ada's, and one the server made itself.
    static func records() throws -> [CommitRecord] {
        var canvas = try Canvas(id: "c1")
        let snap = try canvas.apply(.snap(at: Point(x: 100, y: 100), shapeID: "a", spec: ShapeSpec(kind: "oval")), by: Participant(id: "p"))
        let move = try canvas.apply(.move("a", phase: nil, translation: Point(x: 40, y: 0)), by: Participant(id: "p"))
        return [CommitRecord(canvas: "c1", seq: snap.seq, op: snap.commit!, client: "c:ada", opID: "o1", name: "Ada Lovelace"),
                CommitRecord(canvas: "c1", seq: move.seq, op: move.commit!)]
    }

    @Test("Both stores give each commit's name back, in the log and in history, and nil for a server commit")
    func roundTrip() throws {
        let records = try Self.records()
        for (kind, store) in [("memory", MemoryCanvasStore() as CanvasStore), ("sqlite", try SQLiteCanvasStore(path: Self.path()))] {
            try store.write(records.map { .commit($0) })
            #expect(try store.load("c1").log.map(\.name) == ["Ada Lovelace", nil], "\(kind)")
            #expect(try store.history("c1", after: 0, limit: 10).map(\.record.name) == ["Ada Lovelace", nil], "\(kind)")
        }
    }

    @Test("Rows logged before names were kept read as nameless after the migration; the file keeps its names across opens")
    func olderRows() throws {
        let path = Self.path()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // A file as the previous schema left it, with one logged op.
        let old = try DatabaseQueue(path: path)
        try SQLiteCanvasStore.migrator.migrate(old, upTo: "v4-history")
        let record = try Self.records()[0]
        try old.write { db in
            try db.execute(sql: "INSERT INTO oplog (canvas, seq, client, op_id, op, at) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: ["c1", 1, "c:ada", "o1", Data(LogCodec.encode(record.op)), 1_700_000_000])
        }
        try old.close()
        let store = try SQLiteCanvasStore(path: path)
        #expect(try store.history("c1", after: 0, limit: 10).map(\.record.name) == [nil])
        let next = try Self.records()[1]
        try store.write([.commit(CommitRecord(canvas: "c1", seq: 2, op: next.op, client: "c:bo", opID: "o2", name: "Bo"))])
        #expect(try SQLiteCanvasStore(path: path).history("c1", after: 0, limit: 10).map(\.record.name) == [nil, "Bo"])
    }

    @Test("A stored name longer than 64 characters, or not text, reads as none, and the canvas still loads")
    func damagedNames() throws {
        let path = Self.path()
        let store = try SQLiteCanvasStore(path: path)
        try store.write(try Self.records().map { .commit($0) })
        let raw = try SQLiteCanvasStore.rawQueue(path)
        try raw.write { db in
            try db.execute(sql: "UPDATE oplog SET name = ? WHERE seq = 1", arguments: [String(repeating: "n", count: 65)])
            try db.execute(sql: "UPDATE oplog SET name = ? WHERE seq = 2", arguments: [Data([0xFF, 0x00])])
        }
        #expect(try store.history("c1", after: 0, limit: 10).map(\.record.name) == [nil, nil])
        #expect(try store.load("c1").log.count == 2)
        try raw.write { try $0.execute(sql: "UPDATE oplog SET name = ? WHERE seq = 1", arguments: [String(repeating: "n", count: 64)]) }
        #expect(try store.history("c1", after: 0, limit: 1).first?.record.name == String(repeating: "n", count: 64))
    }
}
