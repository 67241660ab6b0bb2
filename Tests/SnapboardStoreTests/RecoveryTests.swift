import Foundation
import GRDB
import Testing

@testable import SnapboardCore
@testable import SnapboardStore

/// Recovery through the SQLite store (rows read in place, decoded, checked and replayed in bulk) gives the
/// canvas the engine had, whatever kinds of op the log holds; a damaged row is still refused.
@Suite("Recovery from SQLite")
struct RecoveryTests {
    /// The committed effects of `steps` seeded random operations of every kind on `canvas`.
    static func session(_ canvas: inout Canvas, steps: Int, seed: UInt64) -> [CommittedOp] {
        var rng = SeededGenerator(state: seed)
        let p = Participant(id: "p")
        var ops: [CommittedOp] = []
        var next = 0
        func any() -> ShapeID { canvas.shapes.randomElement(using: &rng)?.id ?? "none" }
        func some() -> [ShapeID] { Array(Set((0..<Int.random(in: 2...4, using: &rng)).map { _ in any() })) }
        func point() -> Point { Point(x: Double.random(in: 0...1000, using: &rng), y: Double.random(in: 0...800, using: &rng)) }
        func shift() -> Point { Point(x: Double.random(in: -80...80, using: &rng), y: Double.random(in: -80...80, using: &rng)) }
        for step in 0..<steps {
            let op: CanvasOp
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<15:
                next += 1
                var spec = ShapeSpec(kind: ShapeKind.names.randomElement(using: &rng)!)
                if Bool.random(using: &rng) { spec.text = "t\(next)" }
                op = .snap(at: point(), shapeID: "s\(next)", spec: spec)
            case 15..<22:
                next += 1
                let (a, b) = (canvas.shape(any())?.center ?? point(), canvas.shape(any())?.center ?? point())
                op = .connect(shapeID: "c\(next)", spec: ShapeSpec(kind: Bool.random(using: &rng) ? "arrow" : "line"), from: .at(a), to: .at(b))
            case 22..<40: op = .move(any(), phase: nil, translation: shift())
            case 40..<45: op = .scale(any(), phase: nil, factor: Double.random(in: 0.6...1.5, using: &rng), anchor: nil)
            case 45..<50: op = .rotate(any(), phase: nil, radians: Double.random(in: -3...3, using: &rng))
            case 50..<57: op = .moveMany(some(), phase: nil, translation: shift())
            case 57..<63: op = .endpoint(any(), end: Bool.random(using: &rng) ? .from : .to, phase: nil, translation: shift())
            case 63..<67: op = .order([any()], to: StackMove.allCases.randomElement(using: &rng)!)
            case 67..<71: op = .lock([any()], locked: Bool.random(using: &rng))
            case 71..<75: op = .style([any()], StylePatch(fill: UInt32.random(in: 0...0xFF_FFFF, using: &rng), opacity: 0.5))
            case 75..<79: op = .text(any(), phase: nil, text: "edit \(step)")
            case 79..<82: op = .group(some())
            case 82..<84: op = .duplicate([any()], ids: ["d\(step)"])
            case 84..<90: op = .delete([any()])
            case 90..<99:
                // An undo of a recent effect: a delete comes back as a restore, a creation goes as a remove.
                guard let last = ops.suffix(8).randomElement(using: &rng), let effect = canvas.reverting(last).effect else { continue }
                if let commit = canvas.apply(effect: effect).commit { ops.append(commit) }
                continue
            default:
                op = step > steps / 2 && !ops.contains { if case .clear = $0 { true } else { false } } ? .clear : .delete([any()])
            }
            if let commit = try? canvas.apply(op, by: p).commit { ops.append(commit) }
        }
        return ops
    }

    /// Which case an effect is, for counting the kinds a log holds.
    static func kind(_ op: CommittedOp) -> String { String(String(describing: op).prefix { $0 != "(" }) }

    static func store() throws -> (SQLiteCanvasStore, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-recovery-\(UUID().uuidString).sqlite").path
        return (try SQLiteCanvasStore(path: path), path)
    }

    @Test("A log of thousands of ops of every kind, after a checkpoint, recovers from SQLite to the canvas the engine had",
          arguments: [UInt64(1), 2, 3])
    func everyKind(seed: UInt64) throws {
        var canvas = try Canvas(id: "r")
        let early = Self.session(&canvas, steps: 600, seed: seed)
        let checkpoint = canvas.committedSnapshot
        let late = Self.session(&canvas, steps: 5_000, seed: seed &+ 1_000)
        let kinds = Set((early + late).map(Self.kind))
        #expect(kinds == ["create", "place", "clear", "remove", "restore", "order", "lock", "edit", "reconnect", "arrange"], "seed \(seed)")
        #expect(late.count > 3_000, "seed \(seed)")

        let (store, path) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let records = (early + late).enumerated().map { CommitRecord(canvas: "r", seq: $0 + 1, op: $1, client: "c", opID: "o\($0)") }
        try store.write(records.prefix(early.count).map { .commit($0) })
        try store.write([.checkpoint(checkpoint, pruneBefore: early.count - 100)] + records.dropFirst(early.count).map { .commit($0) })

        let stored = try store.load("r")
        #expect(stored.log == Array(records.dropFirst(early.count - 101)))
        let recovered = try stored.recovered(id: "r", default: CanvasConfig())
        #expect(recovered.committedSnapshot == canvas.committedSnapshot, "seed \(seed)")
        // The same as replaying the effects one by one, in memory.
        var oneByOne = try Canvas(snapshot: checkpoint)
        for op in late { oneByOne.replay(op) }
        #expect(recovered.committedSnapshot == oneByOne.committedSnapshot, "seed \(seed)")
    }

    /// What `load` gives: the canvas, or the damage it reports.
    enum Loaded: Equatable {
        case canvas(StoredCanvas)
        case damaged(String)
    }

    static func loaded(_ store: SQLiteCanvasStore, _ id: String) -> Loaded {
        do { return .canvas(try store.load(id)) } catch let damaged as DamagedCanvas { return .damaged(damaged.reason) } catch {
            Issue.record("\(error)")
            return .damaged("\(error)")
        }
    }

    /// Two stores on one new file, named for `name`: one reads every log row by row, the other on two threads
    /// in chunks of `rowsPerChunk`. `prepare` runs on the file before either opens it.
    static func twoReaders(_ name: String, rowsPerChunk: Int, prepare: (String) throws -> Void = { _ in })
        throws -> (oneByOne: SQLiteCanvasStore, pipelined: SQLiteCanvasStore, path: String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-\(name)-\(UUID().uuidString).sqlite").path
        try prepare(path)
        return (try SQLiteCanvasStore(path: path, durability: .normal, pipelining: (Int.max, rowsPerChunk)),
                try SQLiteCanvasStore(path: path, durability: .normal, pipelining: (0, rowsPerChunk)), path)
    }

    @Test("A log read on two threads loads exactly as one read row by row: every kind of op, odd column types, damage")
    func pipelinedRead() throws {
        var canvas = try Canvas(id: "r")
        let ops = Self.session(&canvas, steps: 3_000, seed: 11)
        // Chunks of 64 rows, four waiting at most: the reader waits for the decoder many times over.
        let (oneByOne, pipelined, path) = try Self.twoReaders("pipelined", rowsPerChunk: 64)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try oneByOne.write(ops.enumerated().map { .commit(CommitRecord(canvas: "r", seq: $0 + 1, op: $1, client: "client-\($0 % 7)", opID: "o\($0)",
                                                                        step: $0 % 5 == 4 ? .undo(of: $0) : nil, name: $0 % 3 == 0 ? "Ann" : nil)) })
        let loaded = try pipelined.load("r")
        #expect(loaded.log.count == ops.count)
        // Compared first, so that a failure names the case rather than printing thousands of records.
        let same = loaded == (try oneByOne.load("r"))
        #expect(same)
        #expect(try loaded.recovered(id: "r", default: CanvasConfig()).committedSnapshot == canvas.committedSnapshot)

        // Values of other types than the schema's, which SQLite keeps: read the same way, whether accepted,
        // ignored (a name) or refused.
        let raw = try SQLiteCanvasStore.rawQueue(path)
        // SQLite converts a number stored in a text column to text, and an integral real in an integer column
        // to an integer, but keeps a blob, a fractional real and a text with a NUL as they are.
        let odd: [(String, String)] = [
            ("a client in a UTF-8 blob", "UPDATE oplog SET client = CAST(client AS BLOB) WHERE seq = 10"),
            ("an op id with a NUL in its text", "UPDATE oplog SET op_id = 'ab' || char(0) || 'cd' WHERE seq = 20"),
            ("a fractional seq", "UPDATE oplog SET seq = 30.5 WHERE seq = 30"),
            ("an op in a text", "UPDATE oplog SET op = CAST(op AS TEXT) WHERE seq = 40"),
            ("a name of NULs in a blob", "UPDATE oplog SET name = zeroblob(2) WHERE seq = 50"),
            ("a name in a blob that is not UTF-8", "UPDATE oplog SET name = x'ff00fe' WHERE seq = 60"),
            ("an empty op id", "UPDATE oplog SET op_id = '' WHERE seq = 70"),
            ("a fractional undo", "UPDATE oplog SET undoes = 3.5 WHERE seq = 80"),
        ]
        for (name, sql) in odd {
            try raw.write { try $0.execute(sql: sql) }
            let same = Self.loaded(pipelined, "r") == Self.loaded(oneByOne, "r")
            #expect(same, "\(name)")
        }
        let odds = try pipelined.load("r")
        #expect(odds.log.count == ops.count)
        #expect(odds.log.first { $0.seq == 20 }?.opID == "ab")
        #expect(odds.log.first { $0.seq == 80 }?.step == .undo(of: 3))
        // Each damage comes earlier in seq order than the one before, so it is the one reported.
        let damage: [(String, String)] = [
            ("a seq in a blob, which sorts last", "UPDATE oplog SET seq = x'01' WHERE seq = 5"),
            ("a truncated op in a late chunk", "UPDATE oplog SET op = substr(op, 1, length(op) - 3) WHERE seq = 2900"),
            ("a client in a blob that is not UTF-8", "UPDATE oplog SET client = x'ff' WHERE seq = 100"),
            ("an op that is a number", "UPDATE oplog SET op = 5 WHERE seq = 6"),
        ]
        for (name, sql) in damage {
            try raw.write { try $0.execute(sql: sql) }
            let both = (Self.loaded(pipelined, "r"), Self.loaded(oneByOne, "r"))
            let same = both.0 == both.1
            #expect(same, "\(name)")
            guard case .damaged(let reason) = both.0 else { Issue.record("\(name) was not refused"); continue }
            #expect(reason.contains("does not decode"), "\(name): \(reason)")
        }
    }

    @Test("In a UTF-16 database, a log read on two threads keeps its ids: text is copied as UTF-8, as a row read in place is")
    func pipelinedReadUTF16() throws {
        var canvas = try Canvas(id: "r")
        let ops = Self.session(&canvas, steps: 500, seed: 5)
        // The encoding is fixed when the first table is made, before the store migrates the file.
        let (oneByOne, pipelined, path) = try Self.twoReaders("utf16", rowsPerChunk: 64) { path in
            try SQLiteCanvasStore.rawQueue(path).writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA encoding = 'UTF-16le'")
                try db.execute(sql: "CREATE TABLE first (x)")
            }
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try SQLiteCanvasStore.rawQueue(path).read { try String.fetchOne($0, sql: "PRAGMA encoding") } == "UTF-16le")
        try oneByOne.write(ops.enumerated().map { .commit(CommitRecord(canvas: "r", seq: $0 + 1, op: $1, client: "c:bench-\($0 % 3)", opID: "op\($0)",
                                                                        name: "Zoë")) })
        let loaded = try pipelined.load("r")
        #expect(loaded.log.map(\.client) == (0..<ops.count).map { "c:bench-\($0 % 3)" })
        #expect(loaded.log.last?.opID == "op\(ops.count - 1)" && loaded.log.last?.name == "Zoë")
        let same = loaded == (try oneByOne.load("r"))
        #expect(same)
    }

    @Test("Rows with huge values are handed over in chunks of about a megabyte, and load as read one by one")
    func pipelinedReadHugeValues() throws {
        var canvas = try Canvas(id: "r")
        let ops = Self.session(&canvas, steps: 400, seed: 9)
        let (oneByOne, pipelined, path) = try Self.twoReaders("huge", rowsPerChunk: 4_096)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try oneByOne.write(ops.enumerated().map { .commit(CommitRecord(canvas: "r", seq: $0 + 1, op: $1, client: "c", opID: "o\($0)")) })
        // Names of 100 KB, which a record drops (too long), but which are read whole.
        try SQLiteCanvasStore.rawQueue(path).write { try $0.execute(sql: "UPDATE oplog SET name = replace(hex(zeroblob(50000)), '0', 'a') WHERE seq % 2 = 0") }
        let loaded = try pipelined.load("r")
        #expect(loaded.log.count == ops.count && loaded.log.allSatisfy { $0.name == nil })
        let same = loaded == (try oneByOne.load("r"))
        #expect(same)
    }

    @Test("A damaged row in a long log is refused: truncated, of the wrong type, out of range, or leaving a gap")
    func damagedRow() throws {
        var canvas = try Canvas(id: "r")
        let ops = Self.session(&canvas, steps: 3_000, seed: 7)
        // A placement with commits after it, so that losing its row leaves a gap.
        let place = try #require(ops.dropLast(10).lastIndex { if case .place = $0 { true } else { false } })
        guard case .place(var far, let before) = ops[place] else { return }
        far.center.x = 1e12
        let damage: [(String, String, [(any DatabaseValueConvertible)?])] = [
            ("truncated", "UPDATE oplog SET op = substr(op, 1, length(op) - 3) WHERE seq = ?", [place + 1]),
            ("text seq", "UPDATE oplog SET seq = 'x' WHERE seq = ?", [place + 1]),
            ("real undo", "UPDATE oplog SET undoes = 1.5e300 WHERE seq = ?", [place + 1]),
            ("out of range", "UPDATE oplog SET op = ? WHERE seq = ?", [Data(LogCodec.encode(.place(far, before: before))), place + 1]),
            ("gap", "DELETE FROM oplog WHERE seq = ?", [place + 1]),
            // Read as an integer, a fractional seq names the commit before it a second time.
            ("twice", "INSERT INTO oplog (canvas, seq, op, at) SELECT canvas, seq + 0.5, op, at FROM oplog WHERE seq = ?", [place + 1]),
        ]
        for (name, sql, arguments) in damage {
            let (store, path) = try Self.store()
            defer { try? FileManager.default.removeItem(atPath: path) }
            try store.write(ops.enumerated().map { .commit(CommitRecord(canvas: "r", seq: $0 + 1, op: $1)) })
            #expect(try store.load("r").recovered(id: "r", default: CanvasConfig()).committedSnapshot == canvas.committedSnapshot)
            try SQLiteCanvasStore.rawQueue(path).write { try $0.execute(sql: sql, arguments: StatementArguments(arguments)) }
            #expect(throws: DamagedCanvas.self, "\(name)") { try store.load("r").recovered(id: "r", default: CanvasConfig()) }
        }
    }
}
