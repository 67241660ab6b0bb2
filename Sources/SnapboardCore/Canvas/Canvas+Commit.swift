/// Committing and replaying: every change to the canvas, live or from the op log, takes one path.
extension Canvas {
    /// Applies a committed effect and counts it: the single path shared by live operations and replay.
    @discardableResult
    mutating func commit(_ op: CommittedOp) -> Outcome {
        var outcome = Outcome()
        switch op {
        case .create(let shape, let rngState):
            rng.state = rngState
            nextZ = max(nextZ, shape.z + 1)
            outcome.changed = [insert(shape)]
        case .place(let placement, _):
            if let slot = applyPlacement(placement) {
                outcome.changed = [store.shape(inSlot: slot)]
                // Only connectors follow a shape, and most canvases bind none.
                if !bindings.isEmpty { outcome.changed += follow(CollectionOfOne(placement.id)) }
            }
        case .clear:
            store.removeAll()
            gestures.removeAll()
            (bindings, boundTo) = ([:], [:])
            nextZ = 0
            outcome.cleared = true
        case .remove(let shapes):
            var removed = Set<ShapeID>()
            for shape in shapes {
                guard let slot = store.slot(of: shape.id) else { continue }
                fileBindings(of: shape.id, as: nil)
                gestures.remove(slot)
                store.remove(shape.id)
                removed.insert(shape.id)
                outcome.removed.append(shape.id)
            }
            outcome.changed = free(boundTo: removed)
        case .restore(let shapes):
            // Shapes first, so that connectors among them may bind to each other; then those connectors.
            var back: [Shape] = []
            for shape in shapes where store.slot(of: shape.id) == nil {
                var plain = shape
                (plain.from, plain.to) = (nil, nil)
                store.insert(plain)
                nextZ = max(nextZ, shape.z + 1)
                back.append(shape)
            }
            for shape in back {
                guard shape.kind.isConnector else { outcome.changed.append(shape); continue }
                store.remove(shape.id)
                outcome.changed.append(insert(shape))
            }
            let connectors = Set(back.filter(\.kind.isConnector).map(\.id))
            outcome.changed += follow(back.map(\.id)).filter { !connectors.contains($0.id) }
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
        case .arrange(let placements, _):
            // A connector moved with a selection keeps the ends bound inside it, and lets go of the others.
            let moved = Set(placements.map(\.id))
            for placement in placements {
                guard let slot = store.slot(of: placement.id) else { continue }
                var shape = placement.applied(to: store.shape(inSlot: slot))
                if shape.kind.isConnector {
                    for end in ConnectorEnd.allCases where shape.binding(end).map({ !moved.contains($0.shape) }) == true { shape.setBinding(nil, end) }
                    fileBindings(of: shape.id, as: shape)
                }
                store.setLive(shape, inSlot: slot)
                store.reindex(shape.id)
                nextZ = max(nextZ, shape.z + 1)
                outcome.changed.append(shape)
            }
            // Connectors bound to the shapes are laid again: those in the selection replace their entry.
            for laid in follow(placements.map(\.id)) {
                if let i = outcome.changed.firstIndex(where: { $0.id == laid.id }) { outcome.changed[i] = laid } else { outcome.changed.append(laid) }
            }
        case .reconnect(let after, _):
            // A sound log never reconnects a missing shape; a damaged one is tolerated rather than trapped on.
            if let slot = store.slot(of: after.id), after.kind.isConnector {
                let shape = laid(sanitized(after), live: false)
                store.setLive(shape, inSlot: slot)
                store.reindex(shape.id)
                fileBindings(of: shape.id, as: shape)
                nextZ = max(nextZ, shape.z + 1)
                outcome.changed = [shape]
            }
        }
        seq += 1
        outcome.commit = op
        outcome.seq = seq
        return outcome
    }

    /// A committed placement applied to its shape where the store holds it; the shape's slot, or nil for a
    /// missing shape, which a sound log never places and a damaged one is tolerated for rather than trapped on.
    @discardableResult
    private mutating func applyPlacement(_ placement: Placement) -> Int32? {
        guard let slot = store.slot(of: placement.id) else { return nil }
        // A connector moved, scaled or turned as a whole lets go of its shapes (P28).
        let isConnector = store.kind(inSlot: slot).isConnector
        if isConnector { fileBindings(of: placement.id, as: nil) }
        store.modify(inSlot: slot) { shape in
            placement.apply(to: &shape)
            if isConnector { (shape.from, shape.to) = (nil, nil) }
        }
        store.reindex(placement.id)
        nextZ = max(nextZ, placement.z + 1)
        return slot
    }

    /// Inserts `shape`; a connector keeps only the bindings it may (`sanitized`) and is laid from them.
    private mutating func insert(_ shape: Shape) -> Shape {
        guard shape.kind.isConnector else {
            store.insert(shape)
            return shape
        }
        let kept = laid(sanitized(shape), live: false)
        store.insert(kept)
        fileBindings(of: kept.id, as: kept)
        return kept
    }

    /// Reapplies many effects from the op log, in order: the same result as replaying them one by one,
    /// faster, because the snapping indexes are rebuilt once at the end instead of kept sorted throughout.
    public mutating func replay(contentsOf ops: some Sequence<CommittedOp>) {
        store.deferIndexing = true
        for op in ops { commit(op) }
        store.rebuildIndexes()
    }

    /// `replay(contentsOf:)` for an op log's records: those whose seq is after `seq`, in the order given.
    /// Not generic, so that a caller in another module (recovery) runs specialised code, not the generic one.
    public mutating func replay(_ records: ArraySlice<CommitRecord>, after seq: Int) {
        store.deferIndexing = true
        for i in records.indices where records[i].seq > seq {
            // Most of a long log is placements: with no connector bound to anything, nothing follows one, and
            // it is applied without building the outcome that a live commit reports and replay drops.
            if bindings.isEmpty, case .place(let placement, _) = records[i].op {
                applyPlacement(placement)
                self.seq += 1
            } else {
                commit(records[i].op)
            }
        }
        store.rebuildIndexes()
    }

    /// Reapplies an effect from the op log and returns what it changed. Replaying a canvas's commits, in
    /// order, on the snapshot taken before them reproduces its committed state exactly.
    @discardableResult
    public mutating func replay(_ op: CommittedOp) -> Outcome {
        commit(op)
    }
}
