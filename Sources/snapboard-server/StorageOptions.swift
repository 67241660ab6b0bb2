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

    @Option(help: ArgumentHelp("For tests: while this file exists, every write fails, as on a full disk.", visibility: .hidden))
    var faultFile: String?

    func validate() throws {
        guard SQLiteCanvasStore.Durability(rawValue: durability) != nil else { throw ValidationError("--durability is full or normal") }
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
