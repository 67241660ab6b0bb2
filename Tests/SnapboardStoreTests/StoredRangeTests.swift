import Foundation
import GRDB
import Testing

@testable import SnapboardCore
@testable import SnapboardStore

/// A stored canvas is checked before anyone computes with it: rows that do not decode, hold a value of the
/// wrong type, or numbers out of range are reported as `DamagedCanvas`, never trapped on.
@Suite("Stored data: damaged rows are reported, never trapped on")
struct StoredRangeTests {
    static func store() throws -> (SQLiteCanvasStore, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-ranges-\(UUID().uuidString).sqlite").path
        return (try SQLiteCanvasStore(path: path), path)
    }

    static func shape(_ id: String, z: Int = 0) -> Shape {
        Shape(id: id, kind: .dot, center: Point(x: 100, y: 100), size: Size(width: 40, height: 40), fill: .seedDefault(hue: 0.2), z: z)
    }

    @Test("A log whose seq, undo target, shape z or centre is out of range has a problem; recovered and state(at:) throw DamagedCanvas")
    func logRanges() throws {
        let good = StoredCanvas(snapshot: nil, log: [CommitRecord(canvas: "c", seq: 1, op: .create(Self.shape("a"), rng: 1))])
        #expect(good.problem(id: "c", default: CanvasConfig()) == nil)
        #expect(try good.recovered(id: "c", default: CanvasConfig()).count == 1)
        let bad: [StoredCanvas] = [
            StoredCanvas(snapshot: nil, log: [CommitRecord(canvas: "c", seq: .max, op: .create(Self.shape("a"), rng: 1))]),
            StoredCanvas(snapshot: nil, log: [CommitRecord(canvas: "c", seq: 0, op: .create(Self.shape("a"), rng: 1))]),
            StoredCanvas(snapshot: nil, log: [CommitRecord(canvas: "c", seq: 1, op: .create(Self.shape("a", z: .max), rng: 1))]),
            StoredCanvas(snapshot: nil, log: [CommitRecord(canvas: "c", seq: 1, op: .create(Self.shape("a"), rng: 1), step: .undo(of: .min))]),
            StoredCanvas(snapshot: nil, log: [CommitRecord(canvas: "c", seq: 1, op: .restore([Self.shape("a", z: .min)]))]),
            StoredCanvas(snapshot: nil, log: [], epochs: [Epoch(id: "e", start: -5)]),
            // A gap: a room replays only the commits that follow on, an export all of them (the fuzzer's find).
            StoredCanvas(snapshot: nil, log: [CommitRecord(canvas: "c", seq: 1, op: .create(Self.shape("a"), rng: 1)),
                                              CommitRecord(canvas: "c", seq: 3, op: .create(Self.shape("b"), rng: 1))]),
            // A seq twice (a seq stored as 1.5 reads as 1), after the checkpoint or before it, or out of order.
            StoredCanvas(snapshot: nil, log: [CommitRecord(canvas: "c", seq: 1, op: .create(Self.shape("a"), rng: 1)),
                                              CommitRecord(canvas: "c", seq: 1, op: .create(Self.shape("b"), rng: 1))]),
            StoredCanvas(snapshot: nil, log: [CommitRecord(canvas: "c", seq: 2, op: .create(Self.shape("a"), rng: 1)),
                                              CommitRecord(canvas: "c", seq: 1, op: .create(Self.shape("b"), rng: 1))]),
            // A creation of a shape that exists: two shapes under one id (the fuzzer's second find).
            StoredCanvas(snapshot: nil, log: [CommitRecord(canvas: "c", seq: 1, op: .create(Self.shape("a"), rng: 1)),
                                              CommitRecord(canvas: "c", seq: 2, op: .create(Self.shape("a"), rng: 1))]),
        ]
        for stored in bad {
            #expect(stored.problem(id: "c", default: CanvasConfig()) != nil, "\(stored.log.first?.seq ?? 0)")
            #expect(throws: DamagedCanvas.self) { try stored.recovered(id: "c", default: CanvasConfig()) }
            #expect(throws: DamagedCanvas.self) { try stored.state(at: 1, id: "c", default: CanvasConfig()) }
        }
        var snapshot = try Canvas(id: "c").committedSnapshot
        snapshot.seq = .max
        #expect(StoredCanvas(snapshot: snapshot, log: []).problem(id: "c", default: CanvasConfig()) != nil)
        snapshot.seq = 0
        #expect(StoredCanvas(snapshot: snapshot, log: []).problem(id: "other", default: CanvasConfig()) != nil)
        // Before the checkpoint too: the resume window's commits are each logged once.
        snapshot.seq = 5
        let window = [CommitRecord(canvas: "c", seq: 4, op: .clear(removed: [])), CommitRecord(canvas: "c", seq: 4, op: .clear(removed: []))]
        #expect(StoredCanvas(snapshot: snapshot, log: window).problem(id: "c", default: CanvasConfig())?.contains("seq 4 after seq 4") == true)
        #expect(StoredCanvas(snapshot: snapshot, log: [window[0]]).problem(id: "c", default: CanvasConfig()) == nil)
    }

    @Test("A long log is checked in slices on every core: the first damaged commit in log order is the one reported, whichever slice holds it")
    func longLogChecks() throws {
        let dot = Self.shape("a")
        let count = StoredCanvas.parallelChecksFrom * 2
        func moves(_ damage: [Int: Placement]) -> StoredCanvas {
            StoredCanvas(snapshot: nil, log: [CommitRecord(canvas: "c", seq: 1, op: .create(dot, rng: 1))] + (2...count).map { seq in
                var p = Placement(of: dot)
                p.center.x = Double(100 + seq % 500)
                return CommitRecord(canvas: "c", seq: seq, op: .place(damage[seq] ?? p, before: Placement(of: dot)))
            })
        }
        #expect(moves([:]).problem(id: "c", default: CanvasConfig()) == nil)
        var off = Placement(of: dot), deep = Placement(of: dot), thin = Placement(of: dot)
        off.center.x = -5
        deep.z = .max
        (thin.size, thin.scale) = (Size(width: 0, height: Shape.connectorThickness), 1e5)
        let late = count - 10, early = count / 3
        #expect(moves([late: deep]).problem(id: "c", default: CanvasConfig())?.hasPrefix("commit \(late):") == true)
        #expect(moves([late: deep, early: off]).problem(id: "c", default: CanvasConfig())?.hasPrefix("commit \(early):") == true)
        // On a canvas without connectors, a plain shape placed as a thin connector frame is still found.
        #expect(moves([late: thin]).problem(id: "c", default: CanvasConfig())?.hasPrefix("commit \(late):") == true)
    }

    @Test("[P28] A logged placement must fit its shape's kind: a connector placed at another height, a plain shape placed as a thin connector frame, a reconnect of a plain shape are damage")
    func placementsFitKinds() throws {
        let line = Shape(id: "k", kind: .line, center: Point(x: 100, y: 100), size: Size(width: 50, height: Shape.connectorThickness),
                         fill: .seedDefault(hue: 0), z: 1)
        func placed(_ shape: Shape, width: Double, height: Double, scale: Double = 1) -> Placement {
            var p = Placement(of: shape)
            (p.size, p.scale) = (Size(width: width, height: height), scale)
            return p
        }
        let base = [CommitRecord(canvas: "c", seq: 1, op: .create(Self.shape("a"), rng: 1)), CommitRecord(canvas: "c", seq: 2, op: .create(line, rng: 1))]
        let good = StoredCanvas(snapshot: nil, log: base + [
            CommitRecord(canvas: "c", seq: 3, op: .place(placed(line, width: 0, height: 16, scale: 1e5), before: Placement(of: line))),
            CommitRecord(canvas: "c", seq: 4, op: .arrange([placed(Self.shape("a"), width: 16, height: 16)], before: [Placement(of: Self.shape("a"))])),
        ])
        #expect(good.problem(id: "c", default: CanvasConfig()) == nil)
        for op: CommittedOp in [
            .place(placed(line, width: 50, height: 20), before: nil),
            .place(placed(Self.shape("a"), width: 0, height: 16, scale: 1e5), before: nil),
            .arrange([placed(line, width: 50, height: 40)], before: [Placement(of: line)]),
            .reconnect(Self.shape("a").with(kind: .line), before: Self.shape("a").with(kind: .line)),
        ] {
            let stored = StoredCanvas(snapshot: nil, log: base + [CommitRecord(canvas: "c", seq: 3, op: op)])
            #expect(stored.problem(id: "c", default: CanvasConfig()) != nil, "\(op)")
        }
    }

    @Test("Rows of the wrong type, an op that does not decode and a checkpoint that does not decode load as DamagedCanvas")
    func damagedRows() throws {
        let (store, path) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let raw = try SQLiteCanvasStore.rawQueue(path)
        let op = Data(CommittedOp.create(Self.shape("a"), rng: 1).loggedBytes)
        try raw.write { db in
            try db.execute(sql: "INSERT INTO oplog (canvas, seq, op, at) VALUES ('text-seq', 'abc', ?, 0)", arguments: [op])
            try db.execute(sql: "INSERT INTO oplog (canvas, seq, op, at) VALUES ('real-seq', 1e300, ?, 0)", arguments: [op])
            try db.execute(sql: "INSERT INTO oplog (canvas, seq, op, at) VALUES ('text-op', 1, 'not a blob', 0)")
            try db.execute(sql: "INSERT INTO oplog (canvas, seq, op, at) VALUES ('short-op', 1, X'0101', 0)")
            try db.execute(sql: "INSERT INTO oplog (canvas, seq, op, at, undoes) VALUES ('text-undo', 1, ?, 0, 'x')", arguments: [op])
            try db.execute(sql: "INSERT INTO snapshot (canvas, seq, state, at) VALUES ('bad-json', 1, CAST('{\"seq\":' AS BLOB), 0)")
            try db.execute(sql: "INSERT INTO epoch (canvas, id, start) VALUES ('text-start', 'e', 'soon')")
            try db.execute(sql: "INSERT INTO snapshot (canvas, seq, state, at) VALUES ('int-state', 1, 42, 0)")
            try db.execute(sql: "INSERT INTO snapshot (canvas, seq, state, at) VALUES (X'FF', 1, X'00', 0)")
        }
        // A canvas id that is not text (a blob that is not UTF-8: SQLite turns a number into text here) is
        // left out of the list the server counts at start, not trapped on.
        #expect(try store.canvases().contains("int-state") && store.canvases().count == 7)
        for canvas in ["text-seq", "real-seq", "text-op", "short-op", "text-undo", "bad-json", "text-start", "int-state"] {
            #expect(throws: DamagedCanvas.self, "\(canvas)") { try store.load(canvas) }
        }
        #expect(throws: DamagedCanvas.self) { try store.history("short-op", after: 0, limit: 10) }
    }

    @Test("A canvas whose log lies on a page SQLite finds malformed loads as DamagedCanvas; a canvas on sound pages still loads")
    func malformedPage() throws {
        let (store, path) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var canvas = try Canvas(id: "a")
        let dot = Self.shape("d")
        try store.write([.commit(CommitRecord(canvas: "a", seq: 1, op: .create(dot, rng: 1)))] + (2...2_000).map { seq in
            var p = Placement(of: dot)
            p.center.x = Double(100 + seq % 300)
            return .commit(CommitRecord(canvas: "a", seq: seq, op: .place(p, before: Placement(of: dot))))
        })
        canvas = try Canvas(id: "b")
        try store.write([.checkpoint(canvas.committedSnapshot, pruneBefore: 0)])
        let raw = try SQLiteCanvasStore.rawQueue(path)
        try raw.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let (page, size) = try raw.read { db in
            (try #require(try Int.fetchOne(db, sql: "SELECT pageno FROM dbstat WHERE name = 'oplog' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 5")),
             try #require(try Int.fetchOne(db, sql: "PRAGMA page_size")))
        }
        let file = try #require(FileHandle(forWritingAtPath: path))
        try file.seek(toOffset: UInt64((page - 1) * size))
        try file.write(contentsOf: Data(repeating: 0xA5, count: size))
        try file.close()
        let fresh = try SQLiteCanvasStore(path: path)
        #expect(throws: DamagedCanvas.self) { try fresh.load("a") }
        #expect(throws: DamagedCanvas.self) { try fresh.history("a", after: 0, limit: 10_000) }
        #expect(try fresh.load("b").snapshot?.id == "b")
    }
}

private extension Shape {
    func with(kind: ShapeKind) -> Shape {
        var shape = self
        shape.kind = kind
        shape.size.height = Shape.connectorThickness
        return shape
    }
}
