import Foundation
import SnapboardCore

/// For tests only: a store whose writes fail, as on a full disk, while a file exists. It wraps the real
/// store, so the production stores carry no test switch; `snapboard-server`'s hidden `--fault-file`
/// puts it in front of the SQLite store.
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
        if FileManager.default.fileExists(atPath: faultFile) { throw DiskFull() }
        try wrapped.write(entries)
    }

    public func load(_ id: String) throws -> StoredCanvas { try wrapped.load(id) }
    public func canvases() throws -> [String] { try wrapped.canvases() }
    public func replace(with snapshot: CanvasSnapshot) throws { try wrapped.replace(with: snapshot) }
}
