import Foundation
import GRDB
import SnapboardCore

/// Canvases in a SQLite file, in WAL mode, with a versioned schema migrated at open.
public final class SQLiteCanvasStore: CanvasStore {
    /// Why a database cannot be used. Opening never overwrites anything it refuses.
    public struct OpenError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    private let database: DatabaseQueue

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
        return migrator
    }

    /// Opens (creating if needed) the database at `path` and migrates it. Refuses a file that is not a
    /// SQLite database or whose schema is newer than this build knows.
    public init(path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
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

    /// A plain connection to `path`, for tests that need to look under the store.
    static func rawQueue(_ path: String) throws -> DatabaseQueue { try DatabaseQueue(path: path) }

    public func load(_ id: String) throws -> CanvasSnapshot? {
        let data = try database.read { db in
            try Data.fetchOne(db, sql: "SELECT snapshot FROM canvas WHERE id = ?", arguments: [id])
        }
        return try data.map { try JSONDecoder().decode(CanvasSnapshot.self, from: $0) }
    }

    public func save(_ snapshot: CanvasSnapshot) throws {
        let data = try JSONEncoder().encode(snapshot)
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO canvas (id, seq, snapshot, savedAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, snapshot = excluded.snapshot, savedAt = excluded.savedAt
                    """,
                arguments: [snapshot.id, snapshot.seq, data, Date().timeIntervalSince1970])
        }
    }
}
