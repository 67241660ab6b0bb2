import Foundation
import GRDB
import SnapboardCore

/// Canvases in a SQLite file: an op log of every commit and the latest checkpoint of each canvas,
/// in WAL mode, with a versioned schema migrated at open.
public final class SQLiteCanvasStore: CanvasStore {
    /// How far a commit must reach the disk before `write` returns.
    public enum Durability: String, Sendable, CaseIterable {
        /// `synchronous=FULL`: a commit survives a power loss or an OS crash, not just a process crash.
        case full
        /// `synchronous=NORMAL`: a commit survives the process being killed; the last transactions may
        /// be lost if the machine loses power.
        case normal
    }

    /// Why a database cannot be used. Opening never overwrites anything it refuses.
    public struct OpenError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    private let database: DatabaseQueue
    /// The file, for `readOnlyConnection()`.
    private let path: String
    /// `load` reads a log of at least `from` records on two threads (`pipelinedLog`), handing rows over in
    /// chunks of `rowsPerChunk`.
    let pipelining: (from: Int, rowsPerChunk: Int)

    /// The migrations, in order; their names are the schema's version history.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-canvases") { db in
            try db.create(table: "canvas") { t in
                t.primaryKey("id", .text)
                t.column("seq", .integer).notNull()
                t.column("snapshot", .blob).notNull()
                t.column("savedAt", .double).notNull()
            }
        }
        migrator.registerMigration("v2-oplog-snapshots") { db in
            try db.create(table: "snapshot") { t in
                t.column("canvas", .text).notNull()
                t.column("seq", .integer).notNull()
                t.column("state", .blob).notNull()
                t.column("at", .double).notNull()
                t.primaryKey(["canvas", "seq"])
            }
            // The op log doubles as the exactly-once table: (canvas, client, op_id) finds an op's seq.
            try db.create(table: "oplog") { t in
                t.column("canvas", .text).notNull()
                t.column("seq", .integer).notNull()
                t.column("client", .text)
                t.column("op_id", .text)
                t.column("op", .blob).notNull()
                t.column("at", .double).notNull()
                t.primaryKey(["canvas", "seq"])
            }
            try db.create(index: "oplog_client_op", on: "oplog", columns: ["canvas", "client", "op_id"])
            try db.execute(sql: "INSERT INTO snapshot (canvas, seq, state, at) SELECT id, seq, snapshot, savedAt FROM canvas")
            try db.drop(table: "canvas")
        }
        migrator.registerMigration("v3-epochs") { db in
            // The runs of each canvas's history, in the order they began (rowid), for resume (P16).
            try db.create(table: "epoch") { t in
                t.column("canvas", .text).notNull()
                t.column("id", .text).notNull()
                t.column("start", .integer).notNull()
                t.primaryKey(["canvas", "id"])
            }
        }
        migrator.registerMigration("v4-history") { db in
            // An undo (or redo) names the commit of the same client it reverted (re-applied), so each
            // client's undo and redo stacks come back from the log.
            try db.alter(table: "oplog") { t in
                t.add(column: "undoes", .integer)
                t.add(column: "redoes", .integer)
            }
        }
        migrator.registerMigration("v5-author-names") { db in
            // The author's display name at commit time, for history; NULL for server commits and older rows.
            try db.alter(table: "oplog") { t in
                t.add(column: "name", .text)
            }
        }
        migrator.registerMigration("v6-answered") { db in
            // The ops that changed nothing and were answered so: exactly-once for them too (P15).
            try db.create(table: "answered") { t in
                t.column("canvas", .text).notNull()
                t.column("client", .text).notNull()
                t.column("op_id", .text).notNull()
                t.column("seq", .integer).notNull()
                t.primaryKey(["canvas", "client", "op_id"])
            }
        }
        return migrator
    }

    /// Opens (creating if needed) the database at `path` and migrates it. Refuses a file that is not a
    /// SQLite database or whose schema is newer than this build knows.
    public convenience init(path: String, durability: Durability = .full) throws {
        try self.init(path: path, durability: durability, pipelining: (Self.pipelinedRecords, 4_096))
    }

    init(path: String, durability: Durability, pipelining: (from: Int, rowsPerChunk: Int)) throws {
        self.path = path
        self.pipelining = pipelining
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            let migrator = Self.migrator
            if try database.read({ try migrator.hasBeenSuperseded($0) }) {
                throw OpenError(description: "\(path) has a newer schema than this snapboard-server; refusing to touch it")
            }
            try migrator.migrate(database)
        } catch let error as OpenError {
            throw error
        } catch {
            throw OpenError(description: "cannot open the database \(path): \(error)")
        }
    }

    /// A read-only connection to the database at `path`, which a writing store has opened (and migrated):
    /// in WAL mode its reads see every transaction committed before each began, and neither waits for the
    /// writer nor holds it up.
    private init(readingFrom path: String, pipelining: (from: Int, rowsPerChunk: Int)) throws {
        self.path = path
        self.pipelining = pipelining
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "snapboard-reader"
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw OpenError(description: "cannot open the database \(path) for reading: \(error)")
        }
    }

    public func readOnlyConnection() throws -> CanvasStore { try SQLiteCanvasStore(readingFrom: path, pipelining: pipelining) }

    /// A plain connection to `path`, for tests that need to look under the store.
    static func rawQueue(_ path: String) throws -> DatabaseQueue { try DatabaseQueue(path: path) }

    /// A checkpoint or a logged op that does not decode is reported as `DamagedCanvas`; the numbers in what
    /// does decode are checked by whoever loads it (`StoredCanvas.problem`), which knows the default config.
    public func load(_ id: String) throws -> StoredCanvas {
        try reportingMalformedPages(of: id) { try read(id) }
    }

    /// `body`, with a page of canvas `id`'s rows that SQLite finds malformed reported as damage to them, as a
    /// row that does not decode is: the canvas is refused with the reason, the file and other canvases left alone.
    private func reportingMalformedPages<T>(of id: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
            throw DamagedCanvas(canvas: id, reason: "its rows are on a damaged page of the database file: \(error.message ?? "\(error)")")
        }
    }

    private func read(_ id: String) throws -> StoredCanvas {
        try database.read { db in
            let snapshot = try DatabaseValue.fetchOne(
                db, sql: "SELECT state FROM snapshot WHERE canvas = ? ORDER BY seq DESC LIMIT 1", arguments: [id]
            ).map { value in
                guard let data = Data.fromDatabaseValue(value) else { throw DamagedCanvas(canvas: id, reason: "its checkpoint is not a blob") }
                do { return try JSONDecoder().decode(CanvasSnapshot.self, from: data) } catch {
                    throw DamagedCanvas(canvas: id, reason: "its checkpoint does not decode: \(error)")
                }
            }
            var log: [CommitRecord] = []
            // Room for the whole log at once (the seqs it spans, from the primary key), rather than a copy of every
            // record read so far each time the array doubles; a stored seq far out of range reserves no more
            // than `reservedRecords`.
            // Two subqueries: SQLite finds a lone min or max with one index lookup, but scans for both at once.
            let ends = try Row.fetchOne(db, sql: "SELECT (SELECT min(seq) FROM oplog WHERE canvas = ?1), (SELECT max(seq) FROM oplog WHERE canvas = ?1)",
                                        arguments: [id])
            var reserve = 0
            if let first = ends.flatMap({ Int.fromDatabaseValue($0[0]) }), let last = ends.flatMap({ Int.fromDatabaseValue($0[1]) }) {
                let span = last.subtractingReportingOverflow(first)
                reserve = span.overflow ? Self.reservedRecords : min(max(span.partialValue + 1, 0), Self.reservedRecords)
            }
            if reserve >= pipelining.from {
                log = try Self.pipelinedLog(db, canvas: id, reserve: reserve, rowsPerChunk: pipelining.rowsPerChunk)
            } else {
                log.reserveCapacity(reserve)
                try Self.eachLogRow(db, sql: Self.logQuery, arguments: [id]) { row in log.append(try Self.record(row, canvas: id)) }
            }
            let epochs = try Row.fetchAll(db, sql: "SELECT id, start FROM epoch WHERE canvas = ? ORDER BY rowid", arguments: [id])
                .map { row in
                    guard let epoch = String.fromDatabaseValue(row["id"]), let start = Int.fromDatabaseValue(row["start"]) else {
                        throw DamagedCanvas(canvas: id, reason: "a run's id or start is not text or an integer")
                    }
                    return Epoch(id: epoch, start: start)
                }
            let answered = try Row.fetchAll(db, sql: "SELECT client, op_id, seq FROM answered WHERE canvas = ? ORDER BY seq", arguments: [id])
                .map { row in
                    guard let client = String.fromDatabaseValue(row["client"]), let opID = String.fromDatabaseValue(row["op_id"]),
                          let seq = Int.fromDatabaseValue(row["seq"]), (0...Canvas.maxSeq).contains(seq) else {
                        throw DamagedCanvas(canvas: id, reason: "an answered op's client, id or seq is not text or a seq")
                    }
                    return AnsweredOp(canvas: id, client: client, opID: opID, seq: seq)
                }
            return StoredCanvas(snapshot: snapshot, log: log, epochs: epochs, answered: answered)
        }
    }

    /// The most records `load` reserves room for before reading a log.
    static let reservedRecords = 1 << 21
    /// The shortest log `load` reads on two threads: below it, starting a second thread costs more than it saves.
    static let pipelinedRecords = 20_000

    public func write(_ entries: [JournalEntry]) throws {
        let encoder = JSONEncoder()
        let now = Date().timeIntervalSince1970
        try database.write { db in
            let insert = try db.cachedStatement(
                sql: "INSERT INTO oplog (canvas, seq, client, op_id, op, at, undoes, redoes, name) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
            for entry in entries {
                switch entry {
                case .commit(let r):
                    var undoes: Int?, redoes: Int?
                    switch r.step {
                    case .undo(let seq)?: undoes = seq
                    case .redo(let seq)?: redoes = seq
                    case nil: break
                    }
                    try insert.execute(arguments: [r.canvas, r.seq, r.client, r.opID, Data(LogCodec.encode(r.op)), now, undoes, redoes, r.name])
                case .checkpoint(let snapshot, let pruneBefore):
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO snapshot (canvas, seq, state, at) VALUES (?, ?, ?, ?)",
                        arguments: [snapshot.id, snapshot.seq, try encoder.encode(snapshot), now])
                    try db.execute(sql: "DELETE FROM snapshot WHERE canvas = ? AND seq < ?", arguments: [snapshot.id, snapshot.seq])
                    try db.execute(sql: "DELETE FROM oplog WHERE canvas = ? AND seq < ?", arguments: [snapshot.id, pruneBefore])
                    try db.execute(sql: "DELETE FROM answered WHERE canvas = ? AND seq < ?", arguments: [snapshot.id, pruneBefore])
                case .answered(let op):
                    try db.execute(sql: "INSERT OR IGNORE INTO answered (canvas, client, op_id, seq) VALUES (?, ?, ?, ?)",
                                   arguments: [op.canvas, op.client, op.opID, op.seq])
                case .epoch(let canvas, let epoch):
                    try db.execute(sql: "INSERT OR IGNORE INTO epoch (canvas, id, start) VALUES (?, ?, ?)",
                                   arguments: [canvas, epoch.id, epoch.start])
                    try db.execute(sql: """
                        DELETE FROM epoch WHERE canvas = ?1 AND rowid NOT IN
                            (SELECT rowid FROM epoch WHERE canvas = ?1 ORDER BY rowid DESC LIMIT ?2)
                        """, arguments: [canvas, Epoch.kept])
                }
            }
        }
    }

    public func replace(with snapshot: CanvasSnapshot) throws {
        let state = try JSONEncoder().encode(snapshot)
        try database.write { db in
            try db.execute(sql: "DELETE FROM oplog WHERE canvas = ?", arguments: [snapshot.id])
            try db.execute(sql: "DELETE FROM snapshot WHERE canvas = ?", arguments: [snapshot.id])
            // A new history: no client's base from the old one is valid.
            try db.execute(sql: "DELETE FROM epoch WHERE canvas = ?", arguments: [snapshot.id])
            try db.execute(sql: "DELETE FROM answered WHERE canvas = ?", arguments: [snapshot.id])
            try db.execute(sql: "INSERT INTO snapshot (canvas, seq, state, at) VALUES (?, ?, ?, ?)",
                           arguments: [snapshot.id, snapshot.seq, state, Date().timeIntervalSince1970])
        }
    }

    /// The widest config any canvas may have: history, which does not load the canvas, checks what it reads
    /// against it, so what it answers holds only numbers in range.
    static let widest: CanvasConfig = {
        var c = CanvasConfig()
        (c.width, c.height, c.minSize, c.maxSize) = (Canvas.maxLength, Canvas.maxLength, .leastNonzeroMagnitude, Canvas.maxLength)
        return c
    }()

    public func delete(_ id: String) throws -> Bool {
        try database.write { db in
            var removed = 0
            for table in ["oplog", "snapshot", "epoch", "answered"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE canvas = ?", arguments: [id])
                if table == "oplog" || table == "snapshot" { removed += db.changesCount }
            }
            return removed > 0
        }
    }

    public func history(_ id: String, after: Int, limit: Int) throws -> [LoggedCommit] {
        try reportingMalformedPages(of: id) {
            try database.read { db in
                var commits: [LoggedCommit] = []
                try Self.eachLogRow(db, sql: "SELECT \(Self.logColumns), at FROM oplog WHERE canvas = ? AND seq > ? ORDER BY seq LIMIT ?",
                                    arguments: [id, after, limit]) { row in
                    let record: CommitRecord
                    do { record = try row.record(canvas: id) } catch {
                        throw DamagedCanvas(canvas: id, reason: "its logged op does not decode: \(error)")
                    }
                    if let problem = record.op.problem(in: Self.widest) { throw DamagedCanvas(canvas: id, reason: "commit \(record.seq): \(problem)") }
                    commits.append(LoggedCommit(record: record, at: row.double(7) ?? 0))
                }
                return commits
            }
        }
    }

    /// A canvas last changed at its newest logged commit (a checkpoint is written later, on an unload).
    public func summaries(prefix: String, after: String?, limit: Int) throws -> [CanvasSummary] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT canvas, MAX(seq) AS seq, COALESCE(MAX(CASE WHEN logged THEN at END), MAX(at)) AS at
                FROM (SELECT canvas, seq, at, 0 AS logged FROM snapshot UNION ALL SELECT canvas, seq, at, 1 FROM oplog)
                WHERE substr(canvas, 1, length(?)) = ? AND canvas > ?
                GROUP BY canvas ORDER BY canvas LIMIT ?
                """, arguments: [prefix, prefix, after ?? "", limit])
            .map { CanvasSummary(id: String.fromDatabaseValue($0["canvas"]) ?? "", seq: Int.fromDatabaseValue($0["seq"]) ?? 0,
                                 changedAt: Double.fromDatabaseValue($0["at"]) ?? 0) }
        }
    }

    public func canvases() throws -> [String] {
        try database.read { db in
            // Read without a conversion that could trap: a row whose id is not text is no canvas this server made.
            try DatabaseValue.fetchAll(db, sql: "SELECT canvas FROM snapshot UNION SELECT canvas FROM oplog ORDER BY 1")
                .compactMap { String.fromDatabaseValue($0) }
        }
    }
}
