import Foundation
import Testing

@testable import SnapboardCore
@testable import SnapboardStore

/// One contract, run against every store.
@Suite("Canvas stores")
struct StoreTests {
    static func stores() throws -> [(String, CanvasStore)] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-store-\(UUID().uuidString)/db.sqlite").path
        return [("memory", MemoryCanvasStore()), ("sqlite", try SQLiteCanvasStore(path: path))]
    }

    @Test("A saved canvas loads back equal; a newer save replaces it; an unknown id loads nil")
    func contract() throws {
        for (name, store) in try Self.stores() {
            var canvas = try Canvas(id: "c1")
            _ = try canvas.apply(.snap(at: Point(x: 100, y: 100), shapeID: nil, spec: ShapeSpec(kind: "star")), by: Participant(id: "p"))
            try store.save(canvas.committedSnapshot)
            #expect(try store.load("c1") == canvas.committedSnapshot, "\(name)")
            _ = try canvas.apply(.clear, by: Participant(id: "p"))
            try store.save(canvas.committedSnapshot)
            #expect(try store.load("c1")?.seq == 2, "\(name)")
            #expect(try store.load("nope") == nil, "\(name)")
        }
    }

    @Test("A database whose schema is newer than this build is refused, untouched")
    func newerSchema() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-newer-\(UUID().uuidString)/db.sqlite").path
        _ = try SQLiteCanvasStore(path: path)
        // Record a migration this build does not know, as a newer build would.
        let raw = try SQLiteCanvasStore.rawQueue(path)
        try raw.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')") }
        #expect(throws: SQLiteCanvasStore.OpenError.self) { try SQLiteCanvasStore(path: path) }
    }
}
