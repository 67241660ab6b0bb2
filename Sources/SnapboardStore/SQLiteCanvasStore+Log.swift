import Dispatch
import GRDB
import GRDBSQLite
import SnapboardCore
import SnapboardLock

/// Reading the op log: one prepared statement stepped row by row, each column read where SQLite holds it.
/// A million rows are read on recovery, so no row is copied into a `Row`, a `DatabaseValue` or `Data` first.
extension SQLiteCanvasStore {
    /// The columns `LogRow.record(canvas:)` reads, in order; a query may select more after them.
    static let logColumns = "seq, client, op_id, op, undoes, redoes, name"

    /// `load`'s query: a canvas's whole log, in seq order.
    static let logQuery = "SELECT \(logColumns) FROM oplog WHERE canvas = ? ORDER BY seq"

    /// A row of `canvas`'s log as a record; one that does not decode is `DamagedCanvas`.
    static func record(_ row: some LogColumns, canvas: String) throws -> CommitRecord {
        do { return try row.record(canvas: canvas) } catch let error as LogCodec.DecodeError {
            throw DamagedCanvas(canvas: canvas, reason: "its logged op at seq \(row.int(0).map(String.init) ?? "?") does not decode: \(error)")
        }
    }

    /// A chunk is handed over at `rowsPerChunk` rows or this many bytes, whichever comes first: at most four
    /// wait, so rows with huge values (a name is kept only if short, but read whole) hold a few megabytes in
    /// flight, not four chunks of 4,096 of them.
    static let bytesPerChunk = 1 << 20

    /// `load`'s log on two threads: this one steps the statement and copies each row's values into chunks
    /// (`LogChunk`), another decodes the chunks into records, so that SQLite's work and the decoding overlap.
    /// The records, their order and any damage reported are those of reading the rows one by one.
    static func pipelinedLog(_ db: Database, canvas: String, reserve: Int, rowsPerChunk: Int) throws -> [CommitRecord] {
        let handoff = Handoff<LogChunk>(capacity: 4)
        let decoded = Locked<Result<[CommitRecord], any Error>>(.success([]))
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global(qos: .userInitiated).async {
            var log: [CommitRecord] = []
            log.reserveCapacity(reserve)
            do {
                while let chunk = handoff.take() {
                    try chunk.eachRow { row in log.append(try record(row, canvas: canvas)) }
                }
                decoded.withLock { $0 = .success(log) }
            } catch {
                handoff.cancel()
                decoded.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        /// The decoder stopped (at a damaged row): reading on would be in vain.
        struct Stopped: Error {}
        do {
            var chunk = LogChunk(rows: rowsPerChunk, bytesPerRow: 256)
            try eachLogRow(db, sql: logQuery, arguments: [canvas]) { row in
                chunk.append(row)
                guard chunk.isFull || chunk.byteCount >= bytesPerChunk else { return }
                guard handoff.put(chunk) else { throw Stopped() }
                chunk = LogChunk(rows: rowsPerChunk, bytesPerRow: 256)
            }
            if chunk.rowCount > 0 { _ = handoff.put(chunk) }
            handoff.finish()
        } catch is Stopped {
        } catch {
            handoff.cancel()
            done.wait()
            throw error
        }
        done.wait()
        return try decoded.withLock { try $0.get() }
    }

    /// Calls `body` with each row `sql` selects, in order. The row is valid only during the call.
    static func eachLogRow(_ db: Database, sql: String, arguments: StatementArguments, _ body: (LogRow) throws -> Void) throws {
        let statement = try db.makeStatement(sql: sql)
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        let row = LogRow(statement: statement.sqliteStatement)
        while try rows.next() != nil { try body(row) }
    }
}

/// A log row's columns by index, with the conversions GRDB's `fromDatabaseValue` makes: SQLite keeps whatever
/// type a row was given, whatever the schema says, so a value of another type reads as nil (and the caller
/// reports damage), never as a trap. `LogRow` reads the statement; `BufferedRow` a copy of a row's values.
protocol LogColumns {
    /// The value's SQLite type: `SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, `SQLITE_BLOB` or `SQLITE_NULL`.
    func type(_ column: Int32) -> Int32
    /// An integer, or a real within Int64's range (truncated, as GRDB converts it); nil for anything else.
    func int(_ column: Int32) -> Int?
    /// `body` given a blob's bytes, or a text's as UTF-8; nil for a value of another type.
    func bytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T?
}

extension LogColumns {
    func isNull(_ column: Int32) -> Bool { type(column) == SQLITE_NULL }

    /// Text, up to its first NUL with invalid UTF-8 repaired (as `String(cString:)` reads it), or a blob that
    /// is UTF-8; nil for anything else.
    func string(_ column: Int32) -> String? {
        switch type(column) {
        case SQLITE_TEXT: bytes(column) { text in String(decoding: text.prefix { $0 != 0 }, as: UTF8.self) }
        case SQLITE_BLOB: bytes(column) { String(validating: $0, as: UTF8.self) } ?? nil
        default: nil
        }
    }

    /// An integer column's value as `int` reads it, for the real SQLite stored.
    static func int(fromReal v: Double) -> Int? {
        guard v >= Double(Int64.min), v < Double(Int64.max) else { return nil }
        return Int(exactly: Int64(v))
    }

    /// The row's first columns (`SQLiteCanvasStore.logColumns`) as a commit of `canvas`.
    func record(canvas: String) throws -> CommitRecord {
        /// The column's value, nil when NULL; a value of another type is damage.
        func optional<T>(_ column: Int32, _ name: String, _ read: (Int32) -> T?) throws -> T? {
            if isNull(column) { return nil }
            guard let value = read(column) else { throw LogCodec.DecodeError(description: "column \(name) has the wrong type") }
            return value
        }
        guard let seq = try optional(0, "seq", int), !isNull(3) else { throw LogCodec.DecodeError(description: "a row without a seq or an op") }
        guard let op = try bytes(3, LogCodec.decode) else { throw LogCodec.DecodeError(description: "column op has the wrong type") }
        let step: HistoryStep? = try optional(4, "undoes", int).map { .undo(of: $0) } ?? optional(5, "redoes", int).map { .redo(of: $0) }
        // A name only labels history: one that is not text, or longer than any the server writes, reads as
        // none rather than as damage.
        let name = string(6).flatMap { $0.utf8.count <= CommitRecord.maxNameCharacters || $0.count <= CommitRecord.maxNameCharacters ? $0 : nil }
        return CommitRecord(canvas: canvas, seq: seq, op: op, client: try optional(1, "client", string), opID: try optional(2, "op_id", string),
                            step: step, name: name)
    }
}

/// The row a statement stands on, read where SQLite holds it.
struct LogRow: LogColumns {
    let statement: SQLiteStatement

    func type(_ column: Int32) -> Int32 { sqlite3_column_type(statement, column) }

    func int(_ column: Int32) -> Int? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: Int(exactly: sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: Self.int(fromReal: sqlite3_column_double(statement, column))
        default: nil
        }
    }

    /// A real, or an integer as a real; nil for anything else.
    func double(_ column: Int32) -> Double? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_FLOAT, SQLITE_INTEGER: sqlite3_column_double(statement, column)
        default: nil
        }
    }

    func bytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        // The pointer first, then the length: SQLite's order for reading a value without converting it again.
        // A text as UTF-8, whatever the database's encoding, as `string` reads it; a null pointer (an empty
        // value) reads as no bytes, as GRDB reads it.
        let start: UnsafeRawPointer?
        switch sqlite3_column_type(statement, column) {
        case SQLITE_BLOB: start = sqlite3_column_blob(statement, column)
        case SQLITE_TEXT: start = sqlite3_column_text(statement, column).map(UnsafeRawPointer.init)
        default: return nil
        }
        guard let start else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, column))))
    }
}
