import SnapboardStore

/// Sends the journal's reports to the shards whose canvases they name.
final class StorageRouter: @unchecked Sendable {
    /// Each shard's hand-over, in shard order; set once, before the journal starts.
    var targets: [StorageHandover] = []

    func route(_ report: Journal.Report) {
        guard targets.count > 1 else {
            switch report {
            case .durable(let seqs): targets.first?.post(.durable(seqs))
            case .answered(let ops): targets.first?.post(.answered(ops))
            case .failed(let canvases, let error): targets.first?.post(.failed(canvases, error))
            }
            return
        }
        let count = targets.count
        switch report {
        case .durable(let seqs):
            var split = [[String: Int]](repeating: [:], count: count)
            for (canvas, seq) in seqs { split[Shards.owner(of: canvas, among: count)][canvas] = seq }
            for (i, part) in split.enumerated() where !part.isEmpty { targets[i].post(.durable(part)) }
        case .answered(let ops):
            let split = Dictionary(grouping: ops) { Shards.owner(of: $0.canvas, among: count) }
            for (i, part) in split.sorted(by: { $0.key < $1.key }) { targets[i].post(.answered(part)) }
        case .failed(let canvases, let error):
            var split = [Set<String>](repeating: [], count: count)
            for canvas in canvases { split[Shards.owner(of: canvas, among: count)].insert(canvas) }
            for (i, part) in split.enumerated() where !part.isEmpty { targets[i].post(.failed(part, error)) }
        }
    }
}
