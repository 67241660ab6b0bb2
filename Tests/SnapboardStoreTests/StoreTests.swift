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

    /// A canvas with a few commits, and the records of those commits.
    static func history() throws -> (Canvas, [CommitRecord]) {
        var canvas = try Canvas(id: "c1")
        var records: [CommitRecord] = []
        let ops: [CanvasOp] = [
            .snap(at: Point(x: 100, y: 100), shapeID: "a", spec: ShapeSpec(kind: "star")),
            .snap(at: Point(x: 300, y: 100), shapeID: "b", spec: ShapeSpec(kind: "oval")),
            .move("a", phase: nil, translation: Point(x: 40, y: 12)),
            .rotate("b", phase: nil, radians: 0.4),
        ]
        for (i, op) in ops.enumerated() {
            let outcome = try canvas.apply(op, by: Participant(id: "p"))
            records.append(CommitRecord(canvas: "c1", seq: outcome.seq, op: outcome.commit!, client: "c:phone", opID: "op\(i)"))
        }
        return (canvas, records)
    }

    @Test("Commits and checkpoints written come back as a log that recovers the same canvas")
    func recovery() throws {
        let (canvas, records) = try Self.history()
        for (name, store) in try Self.stores() {
            #expect(try store.load("c1") == StoredCanvas(snapshot: nil, log: []), "\(name)")
            try store.write(records.prefix(2).map { .commit($0) })
            var atTwo = try Canvas(id: "c1")
            for r in records.prefix(2) { atTwo.replay(r.op) }
            try store.write([.checkpoint(atTwo.committedSnapshot, pruneBefore: 1)] + records.dropFirst(2).map { .commit($0) })
            let stored = try store.load("c1")
            #expect(stored.snapshot?.seq == 2, "\(name)")
            #expect(stored.log == records, "\(name): the log keeps what the resume window covers")
            #expect(try stored.recovered(id: "c1", default: CanvasConfig()).committedSnapshot == canvas.committedSnapshot, "\(name)")
            #expect(try store.canvases() == ["c1"], "\(name)")
        }
    }

    @Test("[P16] The runs of a canvas come back in the order they began, the last 64 of them; an import forgets them")
    func epochs() throws {
        for (name, store) in try Self.stores() {
            let runs = (0..<70).map { Epoch(id: String(format: "%016x", $0 * 7919), start: $0 * 3) }
            try store.write(runs.prefix(2).map { .epoch(canvas: "c1", $0) })
            try store.write([.epoch(canvas: "c2", runs[69])])
            #expect(try store.load("c1").epochs == Array(runs.prefix(2)), "\(name)")
            try store.write(runs.dropFirst(2).map { .epoch(canvas: "c1", $0) })
            #expect(try store.load("c1").epochs == Array(runs.suffix(Epoch.kept)), "\(name)")
            #expect(try store.load("c2").epochs == [runs[69]], "\(name)")
            try store.replace(with: try Canvas(id: "c1").committedSnapshot)
            #expect(try store.load("c1").epochs.isEmpty, "\(name)")
        }
    }

    @Test("[P22] Which commit an undo or redo reverted comes back with the log")
    func historySteps() throws {
        let (_, records) = try Self.history()
        var steps = records
        steps[2].step = .undo(of: 1)
        steps[3].step = .redo(of: 3)
        for (name, store) in try Self.stores() {
            try store.write(steps.map { .commit($0) })
            #expect(try store.load("c1").log.map(\.step) == [nil, nil, .undo(of: 1), .redo(of: 3)], "\(name)")
        }
    }

    @Test("A checkpoint prunes the log before its window")
    func pruning() throws {
        let (canvas, records) = try Self.history()
        for (name, store) in try Self.stores() {
            try store.write(records.map { .commit($0) } + [.checkpoint(canvas.committedSnapshot, pruneBefore: 4)])
            #expect(try store.load("c1").log.map(\.seq) == [4], "\(name)")
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

@Suite("Op log codec")
struct LogCodecTests {
    @Test("Every kind of committed op survives encoding and decoding exactly")
    func roundTrip() throws {
        var canvas = try Canvas(id: "codec")
        let p = Participant(id: "p")
        var ops: [CommittedOp] = []
        for (i, kind) in ShapeKind.names.enumerated() {
            var spec = ShapeSpec(kind: kind)
            spec.hatch = Hatch.allCases[i % 3]
            ops.append(try canvas.apply(.snap(at: Point(x: Double(50 + i * 120), y: 333.3), shapeID: "é-\(i)".replacingOccurrences(of: "é", with: "e"), spec: spec), by: p).commit!)
        }
        ops.append(try canvas.apply(.rotate("e-3", phase: nil, radians: 1.234), by: p).commit!)
        ops.append(try canvas.apply(.scale("e-5", phase: nil, factor: 0.37, anchor: Point(x: 1, y: 2)), by: p).commit!)
        ops.append(try canvas.apply(.delete(["e-1", "e-2"]), by: p).commit!)
        ops.append(canvas.apply(effect: try #require(canvas.reverting(ops.last!).effect)).commit!)
        ops.append(try canvas.apply(.clear, by: p).commit!)
        ops.append(.place(Placement(of: Shape(id: "x", kind: .dot, center: .zero, size: Size(width: 1, height: 1), fill: .seedDefault(hue: 0), z: 0)), before: nil))
        #expect(ops.contains { if case .remove = $0 { true } else { false } } && ops.contains { if case .restore = $0 { true } else { false } })
        for op in ops { #expect(try LogCodec.decode(LogCodec.encode(op)) == op) }
        // A clear of many of the smallest shapes (one-character ids) reads back whole.
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let small = letters.enumerated().map { i, c in
            Shape(id: String(c), kind: .dot, center: Point(x: Double(i), y: 1), size: Size(width: 4, height: 4), fill: .seedDefault(hue: 0), z: i)
        }
        #expect(try LogCodec.decode(LogCodec.encode(.clear(removed: small))) == .clear(removed: small))
        // Rows written before 1.1 (tags 2 and 3 without what undo needs) still read.
        #expect(try LogCodec.decode([1, 3]) == .clear(removed: []))
    }

    @Test("Damaged rows are refused, not trapped on")
    func damaged() throws {
        let bytes = LogCodec.encode(.clear(removed: []))
        #expect(throws: (any Error).self) { try LogCodec.decode([]) }
        #expect(throws: (any Error).self) { try LogCodec.decode([9] + bytes.dropFirst()) }
        var place = Placement(of: Shape(id: "x", kind: .dot, center: .zero, size: Size(width: 1, height: 1), fill: .seedDefault(hue: 0), z: 0))
        place.z = 3
        #expect(throws: (any Error).self) { try LogCodec.decode(Array(LogCodec.encode(.place(place, before: nil)).dropLast(3))) }
    }
}
