import Foundation
import SnapboardPostgres
import SnapboardStore
import SnapboardTesting

#if canImport(Glibc)
import Glibc
#endif

/// One PostgreSQL for the whole test process, started on first use, with fsync off (the contract and
/// ownership tests do not depend on what reaches the disk; `CommitOutcomeTests` runs its own with fsync
/// on). Each test takes a database of its own, so tests run in parallel without seeing each other.
let sharedPostgres: Result<PostgresServer, any Error> = {
    let result = Result { try PostgresServer(fsync: false) }
    // Statics are never deinitialised: stop the server when the test process exits.
    atexit { if case .success(let server) = sharedPostgres { server.stopAtExit() } }
    return result
}()

/// A fresh database on the shared server: its URL for the nodes' role.
func freshDatabase() throws -> (server: PostgresServer, url: String) {
    let server = try sharedPostgres.get()
    return (server, server.url(database: try server.createDatabase()))
}

/// A node's store on `url`, its lease started (claims and writes need it).
func nodeStore(_ url: String, node: String, options: PostgresStoreOptions = PostgresStoreOptions()) throws -> PostgresCanvasStore {
    let store = try PostgresCanvasStore(url: url, node: NodeIdentity(id: node, address: "http://\(node).test:8080"), options: options)
    try store.startLease { _ in }
    return store
}

/// The stores the contract suite runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case memory, sqlite, postgres

    var description: String { rawValue }

    func make() throws -> CanvasStore {
        switch self {
        case .memory:
            return MemoryCanvasStore()
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-store-\(UUID().uuidString)/db.sqlite").path
            return try SQLiteCanvasStore(path: path)
        case .postgres:
            return try nodeStore(try freshDatabase().url, node: "contract")
        }
    }
}
