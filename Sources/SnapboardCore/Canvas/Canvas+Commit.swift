/// Committing and replaying: every change to the canvas, live or from the op log, takes one path.
extension Canvas {
    /// Applies a committed effect and counts it: the single path shared by live operations and replay.
    @discardableResult
    mutating func commit(_ op: CommittedOp) -> Outcome {
        var outcome = Outcome()
        switch op {
        case .create(let shape, let rngState):
            store.insert(shape)
            rng.state = rngState
            nextZ = max(nextZ, shape.z + 1)
            outcome.changed = [shape]
        case .place(let placement, _):
            // A sound log never places a missing shape; a damaged one is tolerated rather than trapped on.
            if let slot = store.slot(of: placement.id) {
                let shape = placement.applied(to: store.shape(inSlot: slot))
                store.setLive(shape)
                store.reindex(shape.id)
                nextZ = max(nextZ, shape.z + 1)
                outcome.changed = [shape]
            }
        case .clear:
            store.removeAll()
            gestures.removeAll()
            nextZ = 0
            outcome.cleared = true
        case .remove(let shapes):
            for shape in shapes {
                guard let slot = store.slot(of: shape.id) else { continue }
                gestures.remove(slot)
                store.remove(shape.id)
                outcome.removed.append(shape.id)
            }
        case .restore(let shapes):
            for shape in shapes where store.slot(of: shape.id) == nil {
                store.insert(shape)
                nextZ = max(nextZ, shape.z + 1)
                outcome.changed.append(shape)
            }
        case .order(let moves):
            for move in moves {
                guard let slot = store.slot(of: move.id) else { continue }
                var shape = store.shape(inSlot: slot)
                shape.z = move.z
                store.setLive(shape, inSlot: slot, bounds: store.bounds(inSlot: slot))
                nextZ = max(nextZ, move.z + 1)
                outcome.changed.append(shape)
            }
        case .lock(let ids, let locked):
            for id in ids {
                guard let slot = store.slot(of: id) else { continue }
                var shape = store.shape(inSlot: slot)
                shape.locked = locked
                store.setLive(shape, inSlot: slot, bounds: store.bounds(inSlot: slot))
                outcome.changed.append(shape)
            }
        case .edit(let changes):
            for change in changes {
                guard let slot = store.slot(of: change.id) else { continue }
                let shape = change.look.applied(to: store.shape(inSlot: slot))
                store.setLive(shape, inSlot: slot, bounds: store.bounds(inSlot: slot))
                outcome.changed.append(shape)
            }
        }
        seq += 1
        outcome.commit = op
        outcome.seq = seq
        return outcome
    }

    /// Reapplies many effects from the op log, in order: the same result as replaying them one by one,
    /// faster, because the snapping indexes are rebuilt once at the end instead of kept sorted throughout.
    public mutating func replay(contentsOf ops: some Sequence<CommittedOp>) {
        store.deferIndexing = true
        for op in ops { commit(op) }
        store.rebuildIndexes()
    }

    /// Reapplies an effect from the op log and returns what it changed. Replaying a canvas's commits, in
    /// order, on the snapshot taken before them reproduces its committed state exactly.
    @discardableResult
    public mutating func replay(_ op: CommittedOp) -> Outcome {
        commit(op)
    }
}
