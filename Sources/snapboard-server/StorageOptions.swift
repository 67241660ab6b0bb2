import ArgumentParser
import Foundation
import SnapboardStore
import SnapboardTesting

/// Where canvases are kept, shared by every subcommand.
struct StorageOptions: ParsableArguments {
    @Option(help: "SQLite file canvases are kept in, or :memory: (SNAPBOARD_DATA).")
    var data = env("DATA") ?? "./data/snapboard.sqlite"

    @Option(help: "full (survives power loss) or normal (survives a crash of the process) (SNAPBOARD_DURABILITY).")
    var durability = env("DURABILITY") ?? "full"

    @Option(help: ArgumentHelp("Keep canvases in PostgreSQL instead, shared by the nodes of a cluster: a libpq URL, multi-host for failover (SNAPBOARD_DATABASE_URL, or a PGPASSFILE for the password; prefer those, which ps does not show).",
                               valueName: "url"))
    var databaseUrl: String?

    /// `--database-url`, else `SNAPBOARD_DATABASE_URL`.
    var databaseURL: String? { databaseUrl ?? env("DATABASE_URL") }

    @Option(help: ArgumentHelp("For tests: while this file exists, every write fails, as on a full disk.", visibility: .hidden))
    var faultFile: String?

    func validate() throws {
        guard SQLiteCanvasStore.Durability(rawValue: durability) != nil else { throw ValidationError("--durability is full or normal") }
        if let url = databaseURL, !(url.hasPrefix("postgresql://") || url.hasPrefix("postgres://")) {
            throw ValidationError("--database-url must be a postgresql:// URL")
        }
    }

    /// For the subcommands that work on a SQLite file only (`import`, `export`): a cluster's canvases are
    /// read and written through a node, which owns them.
    func refuseDatabase(_ command: String, instead: String) throws {
        guard databaseURL != nil else { return }
        throw ValidationError("\(command) works on a SQLite file (--data), not on a cluster's PostgreSQL (--database-url or SNAPBOARD_DATABASE_URL): \(instead)")
    }

    /// The data file's lock, for a server or an import (nil for `:memory:`); throws when another one has it.
    func lock() throws -> DataFileLock? {
        guard data != ":memory:" else { return nil }
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: data).deletingLastPathComponent(), withIntermediateDirectories: true)
        return try DataFileLock(databasePath: data)
    }

    func open() throws -> CanvasStore {
        if data == ":memory:" { return MemoryCanvasStore() }
        let store = try SQLiteCanvasStore(path: data, durability: SQLiteCanvasStore.Durability(rawValue: durability) ?? .full)
        return faultFile.map { FaultInjectingStore(wrapping: store, faultFile: $0) } ?? store
    }
}
