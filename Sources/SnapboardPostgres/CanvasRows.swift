import Foundation
import SnapboardCore
import SnapboardStore

/// The statements that read and write canvases, on a connection the caller holds (and a transaction it
/// opened, for writes). Op blobs are the op log's row format (`CommittedOp.loggedBytes`, as in SQLite) and
/// checkpoints are the same JSON as SQLite's, so a canvas reads back the same from either store.
///
/// Every number read is range-checked before use: a seq outside `0…Canvas.maxSeq`, a run's start outside
/// it, a row of the wrong type, is `DamagedCanvas`, never a trap.
enum CanvasRows {
    static let seqs = 0...Canvas.maxSeq

    // MARK: Reads

    /// The stored canvas `id`: its latest checkpoint, its log and its runs.
    static func load(_ id: String, _ c: PostgresConnection) throws -> StoredCanvas {
        let snapshot = try c.query("SELECT state FROM snapshot WHERE canvas = $1 ORDER BY seq DESC LIMIT 1", [.text(id)])
        var checkpoint: CanvasSnapshot?
        if !snapshot.isEmpty {
            let state = try damaged(id, "its checkpoint is not bytes") { try snapshot.bytes(0, "state") }
            do { checkpoint = try JSONDecoder().decode(CanvasSnapshot.self, from: Data(state ?? [])) } catch {
                throw DamagedCanvas(canvas: id, reason: "its checkpoint does not decode: \(error)")
            }
        }
        let rows = try c.query("SELECT seq, client, op_id, op, undoes, redoes, name FROM oplog WHERE canvas = $1 ORDER BY seq", [.text(id)])
        let log = try (0..<rows.count).map { try record(rows, $0, canvas: id) }
        let runs = try c.query("SELECT id, start FROM epoch WHERE canvas = $1 ORDER BY ord", [.text(id)])
        let epochs = try (0..<runs.count).map { i in
            try damaged(id, "a run's id or start is not text or a seq") {
                guard let epoch = try runs.text(i, "id"), let start = try runs.int(i, "start", in: seqs) else {
                    throw PostgresError(kind: .unexpectedRow, message: "a run without an id or a start")
                }
                return Epoch(id: epoch, start: start)
            }
        }
        let answeredRows = try c.query("SELECT client, op_id, seq FROM answered WHERE canvas = $1 ORDER BY seq", [.text(id)])
        let answered = try (0..<answeredRows.count).map { i in
            try damaged(id, "an answered op's client, id or seq") {
                guard let client = try answeredRows.text(i, "client"), let opID = try answeredRows.text(i, "op_id"),
                      let seq = try answeredRows.int(i, "seq", in: seqs) else {
                    throw PostgresError(kind: .unexpectedRow, message: "an answered op without a client, an id or a seq")
                }
                return AnsweredOp(canvas: id, client: client, opID: opID, seq: seq)
            }
        }
        return StoredCanvas(snapshot: checkpoint, log: log, epochs: epochs, answered: answered)
    }

    /// One `oplog` row (`seq, client, op_id, op, undoes, redoes, name`) as a commit of `canvas`.
    static func record(_ rows: PostgresRows, _ i: Int, canvas: String) throws -> CommitRecord {
        let seq = try damaged(canvas, "a logged commit's seq") { try rows.int(i, "seq", in: seqs) }
        guard let seq else { throw DamagedCanvas(canvas: canvas, reason: "a logged commit without a seq") }
        return try damaged(canvas, "its logged op at seq \(seq)") {
            guard let blob = try rows.bytes(i, "op") else { throw PostgresError(kind: .unexpectedRow, message: "no op") }
            let op = try CommittedOp(loggedBytes: blob)
            let step: HistoryStep? = try rows.int(i, "undoes", in: 1...Canvas.maxSeq).map { .undo(of: $0) }
                ?? rows.int(i, "redoes", in: 1...Canvas.maxSeq).map { .redo(of: $0) }
            // A name only labels history: one longer than any the server writes reads as none, as in SQLite.
            let name = try rows.text(i, "name").flatMap { $0.count <= CommitRecord.maxNameCharacters ? $0 : nil }
            return CommitRecord(canvas: canvas, seq: seq, op: op, client: try rows.text(i, "client"), opID: try rows.text(i, "op_id"),
                                step: step, name: name)
        }
    }

    /// Runs `body`, turning a row that does not hold what the store wrote into `DamagedCanvas`.
    static func damaged<T>(_ canvas: String, _ what: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as PostgresError where error.kind == .unexpectedRow {
            throw DamagedCanvas(canvas: canvas, reason: "\(what): \(error.message)")
        } catch let error as PostgresError {
            throw error
        } catch let error as DamagedCanvas {
            throw error
        } catch {
            throw DamagedCanvas(canvas: canvas, reason: "\(what) does not decode: \(error)")
        }
    }

    /// The widest config any canvas may have: history, which does not load the canvas, checks what it reads
    /// against it (as SQLite's does), so what it answers holds only numbers in range.
    static let widest: CanvasConfig = {
        var c = CanvasConfig()
        (c.width, c.height, c.minSize, c.maxSize) = (Canvas.maxLength, Canvas.maxLength, .leastNonzeroMagnitude, Canvas.maxLength)
        return c
    }()

    static func history(_ id: String, after: Int, limit: Int, _ c: PostgresConnection) throws -> [LoggedCommit] {
        let rows = try c.query("""
            SELECT seq, client, op_id, op, undoes, redoes, name, extract(epoch FROM at)::float8 AS at
            FROM oplog WHERE canvas = $1 AND seq > $2 ORDER BY seq LIMIT $3
            """, [.text(id), .int(Int64(after)), .int(Int64(max(0, limit)))])
        return try (0..<rows.count).map { i in
            let record = try record(rows, i, canvas: id)
            if let problem = record.op.problem(in: widest) { throw DamagedCanvas(canvas: id, reason: "commit \(record.seq): \(problem)") }
            let at = try? rows.double(i, "at")
            return LoggedCommit(record: record, at: (at ?? nil).flatMap { $0.isFinite ? $0 : nil } ?? 0)
        }
    }

    /// Canvases with a checkpoint or a logged commit: an ownership row alone (a canvas claimed and never
    /// written) is no stored canvas.
    static func canvases(_ c: PostgresConnection) throws -> [String] {
        let rows = try c.query("SELECT canvas FROM snapshot UNION SELECT canvas FROM oplog ORDER BY 1")
        return (0..<rows.count).compactMap { try? rows.text($0, "canvas") }
    }

    /// As SQLite's: the latest seq of each, and when it last changed (its newest logged commit, else its checkpoint).
    static func summaries(prefix: String, after: String?, limit: Int, _ c: PostgresConnection) throws -> [CanvasSummary] {
        let rows = try c.query("""
            SELECT canvas, max(seq) AS seq, extract(epoch FROM COALESCE(max(CASE WHEN logged THEN at END), max(at)))::float8 AS at
            FROM (SELECT canvas, seq, at, false AS logged FROM snapshot WHERE starts_with(canvas, $1) AND canvas > $2
                  UNION ALL SELECT canvas, seq, at, true FROM oplog WHERE starts_with(canvas, $1) AND canvas > $2) AS stored
            GROUP BY canvas ORDER BY canvas LIMIT $3
            """, [.text(prefix), .text(after ?? ""), .int(Int64(max(0, limit)))])
        return try (0..<rows.count).map { i in
            guard let id = try rows.text(i, "canvas") else { throw PostgresError(kind: .unexpectedRow, message: "a canvas without an id") }
            let seq = try damaged(id, "its latest seq") { try rows.int(i, "seq", in: seqs) } ?? 0
            let at = try rows.double(i, "at").flatMap { $0.isFinite ? $0 : nil }
            return CanvasSummary(id: id, seq: seq, changedAt: at ?? 0)
        }
    }

    // MARK: Writes (inside the caller's transaction)

    /// Writes `entries` in order; each commit row carries `fence(canvas)`. Consecutive commits go in one
    /// statement (arrays through `unnest`): a batch of 50 ops is one round trip, not 50.
    static func write(_ entries: [JournalEntry], fence: (String) -> Int64, _ c: PostgresConnection) throws {
        var i = entries.startIndex
        while i < entries.endIndex {
            switch entries[i] {
            case .commit:
                var records: [CommitRecord] = []
                while i < entries.endIndex, case .commit(let r) = entries[i] {
                    records.append(r)
                    i += 1
                }
                try insert(records, fence: fence, c)
                continue
            case .checkpoint(let snapshot, let pruneBefore):
                let state = try JSONEncoder().encode(snapshot)
                try c.query("""
                    INSERT INTO snapshot (canvas, seq, state) VALUES ($1, $2, $3)
                    ON CONFLICT (canvas, seq) DO UPDATE SET state = EXCLUDED.state, at = now()
                    """, [.text(snapshot.id), .int(Int64(snapshot.seq)), .bytes([UInt8](state))])
                try c.query("DELETE FROM snapshot WHERE canvas = $1 AND seq < $2", [.text(snapshot.id), .int(Int64(snapshot.seq))])
                try c.query("DELETE FROM oplog WHERE canvas = $1 AND seq < $2", [.text(snapshot.id), .int(Int64(pruneBefore))])
                try c.query("DELETE FROM answered WHERE canvas = $1 AND seq < $2", [.text(snapshot.id), .int(Int64(pruneBefore))])
            case .answered(let op):
                try c.query("INSERT INTO answered (canvas, client, op_id, seq) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                            [.text(op.canvas), .text(op.client), .text(op.opID), .int(Int64(op.seq))])
            case .epoch(let canvas, let epoch):
                try c.query("INSERT INTO epoch (canvas, id, start) VALUES ($1, $2, $3) ON CONFLICT (canvas, id) DO NOTHING",
                            [.text(canvas), .text(epoch.id), .int(Int64(epoch.start))])
                try c.query("""
                    DELETE FROM epoch WHERE canvas = $1 AND ord NOT IN
                        (SELECT ord FROM epoch WHERE canvas = $1 ORDER BY ord DESC LIMIT $2)
                    """, [.text(canvas), .int(Int64(Epoch.kept))])
            }
            i += 1
        }
    }

    static func insert(_ records: [CommitRecord], fence: (String) -> Int64, _ c: PostgresConnection) throws {
        guard !records.isEmpty else { return }
        try c.query("""
            INSERT INTO oplog (canvas, seq, client, op_id, op, undoes, redoes, name, fence)
            SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bytea[], $6::bigint[], $7::bigint[],
                                 $8::text[], $9::bigint[])
            """, [
                .textArray(records.map(\.canvas)),
                .intArray(records.map { Int64($0.seq) }),
                .textArray(records.map(\.client)),
                .textArray(records.map(\.opID)),
                .bytesArray(records.map(\.op.loggedBytes)),
                .intArray(records.map { if case .undo(let seq)? = $0.step { Int64(seq) } else { nil } }),
                .intArray(records.map { if case .redo(let seq)? = $0.step { Int64(seq) } else { nil } }),
                .textArray(records.map(\.name)),
                .intArray(records.map { fence($0.canvas) }),
            ])
    }

    /// Makes `snapshot` the whole stored canvas (an import): log, checkpoints and runs go.
    static func replace(with snapshot: CanvasSnapshot, _ c: PostgresConnection) throws {
        let state = try JSONEncoder().encode(snapshot)
        for table in ["oplog", "snapshot", "epoch", "answered"] {
            try c.query("DELETE FROM \(table) WHERE canvas = $1", [.text(snapshot.id)])
        }
        try c.query("INSERT INTO snapshot (canvas, seq, state) VALUES ($1, $2, $3)",
                    [.text(snapshot.id), .int(Int64(snapshot.seq)), .bytes([UInt8](state))])
    }

    /// Removes canvas `id`'s log, checkpoints and runs; false when it had neither log nor checkpoint.
    static func delete(_ id: String, _ c: PostgresConnection) throws -> Bool {
        var removed = 0
        for table in ["oplog", "snapshot", "epoch", "answered"] {
            let rows = try c.query("DELETE FROM \(table) WHERE canvas = $1", [.text(id)])
            if table == "oplog" || table == "snapshot" { removed += rows.affected }
        }
        return removed > 0
    }
}
