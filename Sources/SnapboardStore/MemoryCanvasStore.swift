import SnapboardCore
import SnapboardLock

/// A store in memory: canvases survive unloading but not a restart. For tests and `--data :memory:`.
public final class MemoryCanvasStore: CanvasStore {
    private let state = Locked<[String: StoredCanvas]>([:])

    public init() {}

    public func load(_ id: String) -> StoredCanvas {
        state.withLock { $0[id] } ?? StoredCanvas(snapshot: nil, log: [])
    }

    public func write(_ entries: [JournalEntry]) {
        state.withLock { all in
            for entry in entries {
                var stored = all[entry.canvas] ?? StoredCanvas(snapshot: nil, log: [])
                switch entry {
                case .commit(let record):
                    stored.log.append(record)
                case .checkpoint(let snapshot, let pruneBefore):
                    stored.snapshot = snapshot
                    stored.log.removeAll { $0.seq < pruneBefore }
                    stored.answered.removeAll { $0.seq < pruneBefore }
                case .epoch(_, let epoch):
                    stored.epochs = Array((stored.epochs + [epoch]).suffix(Epoch.kept))
                case .answered(let op):
                    if !stored.answered.contains(where: { $0.client == op.client && $0.opID == op.opID }) { stored.answered.append(op) }
                }
                all[entry.canvas] = stored
            }
        }
    }

    /// A canvas is stored once it has a checkpoint or a commit (runs and answers alone are not a canvas).
    private static func isStored(_ canvas: StoredCanvas?) -> Bool { canvas.map { $0.snapshot != nil || !$0.log.isEmpty } ?? false }

    public func canvases() -> [String] { state.withLock { all in all.keys.filter { Self.isStored(all[$0]) }.sorted() } }

    public func summaries(prefix: String, after: String?, limit: Int) -> [CanvasSummary] {
        state.withLock { all in
            all.keys.sorted().filter { $0.hasPrefix(prefix) && $0 > (after ?? "") && Self.isStored(all[$0]) }.prefix(limit).map { id in
                let stored = all[id]!
                return CanvasSummary(id: id, seq: max(stored.snapshot?.seq ?? 0, stored.log.last?.seq ?? 0), changedAt: nil)
            }
        }
    }

    public func replace(with snapshot: CanvasSnapshot) {
        state.withLock { $0[snapshot.id] = StoredCanvas(snapshot: snapshot, log: []) }
    }

    public func delete(_ id: String) -> Bool {
        Self.isStored(state.withLock { $0.removeValue(forKey: id) })
    }

    public func history(_ id: String, after: Int, limit: Int) -> [LoggedCommit] {
        let log = state.withLock { $0[id]?.log } ?? []
        return log.lazy.filter { $0.seq > after }.prefix(limit).map { LoggedCommit(record: $0, at: nil) }
    }
}
