import Foundation
import SnapboardCore
import SnapboardStore

/// For tests only: a store whose writes fail, as on a full disk, while a file exists, or, when the file
/// says `hold`, wait until it is gone, as on a stalled disk (commits are broadcast but never durable, which
/// is how a test makes a crash lose deltas clients saw). It wraps the real store, so the production stores
/// carry no test switch; `snapboard-server`'s hidden `--fault-file` puts it in front of the SQLite store.
public final class FaultInjectingStore: CanvasStore {
    /// The error a refused write throws.
    public struct DiskFull: Error, CustomStringConvertible {
        public var description: String { "injected fault: the disk is full" }
    }

    private let wrapped: CanvasStore
    private let faultFile: String

    public init(wrapping store: CanvasStore, faultFile: String) {
        wrapped = store
        self.faultFile = faultFile
    }

    public func write(_ entries: [JournalEntry]) throws {
        while let fault = FileManager.default.contents(atPath: faultFile) {
            guard String(decoding: fault, as: UTF8.self).hasPrefix("hold") else { throw DiskFull() }
            Thread.sleep(forTimeInterval: 0.01)
        }
        try wrapped.write(entries)
    }

    public func load(_ id: String) throws -> StoredCanvas { try wrapped.load(id) }
    public func canvases() throws -> [String] { try wrapped.canvases() }
    public func summaries(prefix: String, after: String?, limit: Int) throws -> [CanvasSummary] {
        try wrapped.summaries(prefix: prefix, after: after, limit: limit)
    }
    public func replace(with snapshot: CanvasSnapshot) throws { try wrapped.replace(with: snapshot) }
    public func delete(_ id: String) throws -> Bool { try wrapped.delete(id) }
    public func history(_ id: String, after: Int, limit: Int) throws -> [LoggedCommit] {
        try wrapped.history(id, after: after, limit: limit)
    }
    /// Reads only, so no faults: the wrapped store's own.
    public func readOnlyConnection() throws -> CanvasStore { try wrapped.readOnlyConnection() }
}
