import Foundation
import Logging
import SnapboardCore
import SnapboardLock
import SnapboardStore

/// A read-only view of the cluster's canvases on a connection of its own, for the read pool: it claims
/// nothing and writes nothing.
final class PostgresCanvasReader: CanvasStore, @unchecked Sendable {
    private let connection: Locked<PostgresConnection?>
    private let make: () throws -> PostgresConnection

    struct ReadOnly: Error, CustomStringConvertible {
        var description: String { "a reader's connection does not write" }
    }

    init(target: PostgresTarget, node: NodeIdentity, options: PostgresStoreOptions) throws {
        make = {
            try PostgresConnection(target: target, applicationName: PostgresCanvasStore.applicationName(node), options: options.sessionOptions,
                                   statementTimeout: options.commitTimeout)
        }
        connection = Locked(try make())
    }

    private func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try connection.withLock { held in
            for attempt in 1...2 {
                let reused = held?.isOpen == true
                if !reused { held = try make() }
                guard let c = held else { break }
                do { return try body(c) } catch let error as PostgresError where error.connectionGone && reused && attempt == 1 {
                    held = nil
                }
            }
            throw PostgresError(kind: .closed, message: "no connection")
        }
    }

    func load(_ id: String) throws -> StoredCanvas { try read { try CanvasRows.load(id, $0) } }
    func write(_ entries: [JournalEntry]) throws { throw ReadOnly() }
    func canvases() throws -> [String] { try read { try CanvasRows.canvases($0) } }
    func summaries(prefix: String, after: String?, limit: Int) throws -> [CanvasSummary] {
        try read { try CanvasRows.summaries(prefix: prefix, after: after, limit: limit, $0) }
    }
    func replace(with snapshot: CanvasSnapshot) throws { throw ReadOnly() }
    func delete(_ id: String) throws -> Bool { throw ReadOnly() }
    func history(_ id: String, after: Int, limit: Int) throws -> [LoggedCommit] {
        try read { try CanvasRows.history(id, after: after, limit: limit, $0) }
    }
    func readOnlyConnection() throws -> CanvasStore { self }
}
