import Foundation
import Testing

@testable import SnapboardCore
@testable import SnapboardPostgres
@testable import SnapboardStore
import SnapboardTesting

/// One contract, run against every store: in memory, SQLite and PostgreSQL. Each test loads a canvas before
/// writing it, as the server does (a shared store writes only canvases it claimed by loading them).
@Suite("Canvas stores")
struct StoreContractTests {
    /// A canvas with a few commits, and the records of those commits.
    static func history(_ id: String = "c1") throws -> (Canvas, [CommitRecord]) {
        var canvas = try Canvas(id: id)
        var records: [CommitRecord] = []
        let ops: [CanvasOp] = [
            .snap(at: Point(x: 100, y: 100), shapeID: "a", spec: ShapeSpec(kind: "star")),
            .snap(at: Point(x: 300, y: 100), shapeID: "b", spec: ShapeSpec(kind: "oval")),
            .move("a", phase: nil, translation: Point(x: 40, y: 12)),
            .rotate("b", phase: nil, radians: 0.4),
        ]
        for (i, op) in ops.enumerated() {
            let outcome = try canvas.apply(op, by: Participant(id: "p"))
            records.append(CommitRecord(canvas: id, seq: outcome.seq, op: outcome.commit!, client: "c:phone", opID: "op\(i)"))
        }
        return (canvas, records)
    }

    @Test("Commits and checkpoints written come back as a log that recovers the same canvas", arguments: StoreKind.allCases)
    func recovery(_ kind: StoreKind) throws {
        let store = try kind.make()
        let (canvas, records) = try Self.history()
        #expect(try store.load("c1") == StoredCanvas(snapshot: nil, log: []))
        try store.write(records.prefix(2).map { .commit($0) })
        var atTwo = try Canvas(id: "c1")
        for r in records.prefix(2) { atTwo.replay(r.op) }
        try store.write([.checkpoint(atTwo.committedSnapshot, pruneBefore: 1)] + records.dropFirst(2).map { .commit($0) })
        let stored = try store.load("c1")
        #expect(stored.snapshot?.seq == 2)
        #expect(stored.log == records, "the log keeps what the resume window covers")
        #expect(try stored.recovered(id: "c1", default: CanvasConfig()).committedSnapshot == canvas.committedSnapshot)
        #expect(try store.canvases() == ["c1"])
    }

    @Test("[P16] The runs of a canvas come back in the order they began, the last 64 of them; an import forgets them", arguments: StoreKind.allCases)
    func epochs(_ kind: StoreKind) throws {
        let store = try kind.make()
        _ = try store.load("c1")
        _ = try store.load("c2")
        let runs = (0..<70).map { Epoch(id: String(format: "%016x", $0 * 7919), start: $0 * 3) }
        try store.write(runs.prefix(2).map { .epoch(canvas: "c1", $0) })
        try store.write([.epoch(canvas: "c2", runs[69])])
        #expect(try store.load("c1").epochs == Array(runs.prefix(2)))
        try store.write(runs.dropFirst(2).map { .epoch(canvas: "c1", $0) })
        #expect(try store.load("c1").epochs == Array(runs.suffix(Epoch.kept)))
        #expect(try store.load("c2").epochs == [runs[69]])
        try store.replace(with: try Canvas(id: "c1").committedSnapshot)
        #expect(try store.load("c1").epochs.isEmpty)
    }

    @Test("[P22] Which commit an undo or redo reverted comes back with the log", arguments: StoreKind.allCases)
    func historySteps(_ kind: StoreKind) throws {
        let store = try kind.make()
        let (_, records) = try Self.history()
        var steps = records
        steps[2].step = .undo(of: 1)
        steps[3].step = .redo(of: 3)
        _ = try store.load("c1")
        try store.write(steps.map { .commit($0) })
        #expect(try store.load("c1").log.map(\.step) == [nil, nil, .undo(of: 1), .redo(of: 3)])
    }

    @Test("[P19] Each commit's author name comes back, in the log and in history, and nil for a server commit", arguments: StoreKind.allCases)
    func names(_ kind: StoreKind) throws {
        let store = try kind.make()
        var (_, records) = try Self.history()
        records[0].name = "Ada Lovelace"
        records[1].client = nil
        records[1].opID = nil
        _ = try store.load("c1")
        try store.write(records.map { .commit($0) })
        #expect(try store.load("c1").log.map(\.name) == ["Ada Lovelace", nil, nil, nil])
        #expect(try store.history("c1", after: 0, limit: 10).map(\.record) == records)
    }

    @Test("A checkpoint prunes the log before its window", arguments: StoreKind.allCases)
    func pruning(_ kind: StoreKind) throws {
        let store = try kind.make()
        let (canvas, records) = try Self.history()
        _ = try store.load("c1")
        try store.write(records.map { .commit($0) } + [.checkpoint(canvas.committedSnapshot, pruneBefore: 4)])
        #expect(try store.load("c1").log.map(\.seq) == [4])
    }

    @Test("[P15] Answers of ops that changed nothing come back once each, go with the log a checkpoint prunes, and an import or a delete forgets them", arguments: StoreKind.allCases)
    func answered(_ kind: StoreKind) throws {
        let store = try kind.make()
        let (canvas, records) = try Self.history()
        _ = try store.load("c1")
        _ = try store.load("c2")
        let early = AnsweredOp(canvas: "c1", client: "c:phone", opID: "n1", seq: 1)
        let late = AnsweredOp(canvas: "c1", client: "c:phone", opID: "n2", seq: 4)
        try store.write(records.prefix(1).map { .commit($0) } + [.answered(early)])
        // Written again (a retried batch): still once.
        try store.write(records.dropFirst().map { .commit($0) } + [.answered(late), .answered(early),
                        .answered(AnsweredOp(canvas: "c2", client: "c:tab", opID: "n1", seq: 0))])
        #expect(try store.load("c1").answered == [early, late])
        #expect(try store.load("c2").answered == [AnsweredOp(canvas: "c2", client: "c:tab", opID: "n1", seq: 0)])
        try store.write([.checkpoint(canvas.committedSnapshot, pruneBefore: 4)])
        #expect(try store.load("c1").answered == [late])
        try store.replace(with: canvas.committedSnapshot)
        #expect(try store.load("c1").answered.isEmpty)
        #expect(try store.delete("c2") == false, "answers alone are no stored canvas")
        #expect(try store.load("c2").answered.isEmpty)
    }

    @Test("History pages through the log after a seq, at most a limit at a time", arguments: StoreKind.allCases)
    func historyPages(_ kind: StoreKind) throws {
        let store = try kind.make()
        let (_, records) = try Self.history()
        _ = try store.load("c1")
        try store.write(records.map { .commit($0) })
        #expect(try store.history("c1", after: 1, limit: 2).map(\.record.seq) == [2, 3])
        #expect(try store.history("c1", after: 3, limit: 10).map(\.record) == [records[3]])
        #expect(try store.history("c1", after: 4, limit: 10).isEmpty)
        #expect(try store.history("nothing", after: 0, limit: 10).isEmpty)
    }

    @Test("Summaries list stored canvases by prefix, after an id, in id order, up to a limit, with their latest seq", arguments: StoreKind.allCases)
    func summaries(_ kind: StoreKind) throws {
        let store = try kind.make()
        for id in ["team/b", "team/a", "other", "team/c"] {
            let (_, records) = try Self.history(id)
            _ = try store.load(id)
            try store.write(records.prefix(id == "team/a" ? 3 : 1).map { .commit($0) })
        }
        // A canvas loaded (claimed, in a cluster) and never written is not stored.
        _ = try store.load("team/empty")
        #expect(try store.summaries(prefix: "team/", after: nil, limit: 10).map(\.id) == ["team/a", "team/b", "team/c"])
        #expect(try store.summaries(prefix: "team/", after: "team/a", limit: 1).map(\.id) == ["team/b"])
        #expect(try store.summaries(prefix: "", after: nil, limit: 10).first { $0.id == "team/a" }?.seq == 3)
        #expect(try store.canvases() == ["other", "team/a", "team/b", "team/c"])
    }

    @Test("An import replaces the whole canvas; a delete removes it and says whether there was one", arguments: StoreKind.allCases)
    func replaceAndDelete(_ kind: StoreKind) throws {
        let store = try kind.make()
        let (canvas, records) = try Self.history()
        _ = try store.load("c1")
        try store.write(records.map { .commit($0) })
        try store.replace(with: canvas.committedSnapshot)
        let stored = try store.load("c1")
        #expect(stored.log.isEmpty)
        #expect(stored.snapshot == canvas.committedSnapshot)
        #expect(try store.delete("c1"))
        #expect(try store.load("c1") == StoredCanvas(snapshot: nil, log: []))
        #expect(try !store.delete("c1"))
        #expect(try store.canvases().isEmpty)
    }

    @Test("A read-only connection sees what the writer committed", arguments: StoreKind.allCases)
    func readers(_ kind: StoreKind) throws {
        let store = try kind.make()
        let reader = try store.readOnlyConnection()
        let (_, records) = try Self.history()
        _ = try store.load("c1")
        try store.write(records.map { .commit($0) })
        #expect(try reader.load("c1").log == records)
        #expect(try reader.history("c1", after: 0, limit: 2).count == 2)
        #expect(try reader.canvases() == ["c1"])
    }

    @Test("A database whose schema is newer than this build is refused, untouched", arguments: [StoreKind.sqlite, .postgres])
    func newerSchema(_ kind: StoreKind) throws {
        switch kind {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-newer-\(UUID().uuidString)/db.sqlite").path
            _ = try SQLiteCanvasStore(path: path)
            // Record a migration this build does not know, as a newer build would.
            let raw = try SQLiteCanvasStore.rawQueue(path)
            try raw.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')") }
            #expect(throws: SQLiteCanvasStore.OpenError.self) { try SQLiteCanvasStore(path: path) }
        case .postgres:
            let (server, url) = try freshDatabase()
            let database = String(url.split(separator: "/").last!)
            _ = try PostgresCanvasStore(url: url, node: NodeIdentity(id: "n1", address: "http://n1"))
            try server.superuser("INSERT INTO schema_version (version, name) VALUES (99, 'v99-future')", database: database)
            #expect(throws: PostgresOpenError.self) { try PostgresCanvasStore(url: url, node: NodeIdentity(id: "n1", address: "http://n1")) }
            #expect(try server.superuser("SELECT max(version) FROM schema_version", database: database) == "99")
        case .memory:
            break
        }
    }
}
