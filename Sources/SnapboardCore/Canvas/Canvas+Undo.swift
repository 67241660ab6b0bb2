/// Undo and redo as the canvas sees them: what reverting one of its commits would do now, and committing that.
extension Canvas {
    /// What reverting `effect` (a commit of this canvas) would commit now, and the shapes it leaves alone
    /// because of what happened since: a shape someone else changed, removed or re-created since
    /// (`changedSince`, `unknownShape`), one under a gesture (`shapeLocked`), a locked one the revert would
    /// move or remove (`locked`, 1.6), or one a full canvas has no room to bring back (`canvasFull`). Nil when nothing is left to revert. Pure: applying the result is
    /// `apply(effect:)`.
    public func reverting(_ effect: CommittedOp) -> (effect: CommittedOp?, skipped: [(shape: ShapeID, code: Rejection.Code)]) {
        var skipped: [(shape: ShapeID, code: Rejection.Code)] = []
        /// The shape with `id`, when it is still exactly as `expected` left it and free: unlocked too when the
        /// revert would move or remove it (`locked`), as a gesture or a delete would be refused.
        func unchanged(_ id: ShapeID, _ expected: Placement, moving: Bool = true) -> Shape? {
            guard let shape = free(id) else { return nil }
            guard Placement(of: shape) == expected else { skipped.append((id, .changedSince)); return nil }
            guard !moving || !shape.locked else { skipped.append((id, .locked)); return nil }
            return shape
        }
        /// `unchanged` for a whole shape: a connector is as `expected` left it when its bindings and free ends
        /// are, wherever its bound ends have followed their shapes since (P28).
        func unchanged(_ expected: Shape) -> Shape? {
            guard expected.kind.isConnector else { return unchanged(expected.id, Placement(of: expected)) }
            guard let shape = free(expected.id) else { return nil }
            let loose = ConnectorEnd.allCases.filter { expected.binding($0) == nil }
            guard shape.from == expected.from, shape.to == expected.to,
                  loose.allSatisfy({ Canvas.samePoint(shape.endpoint($0), expected.endpoint($0)) })
            else { skipped.append((expected.id, .changedSince)); return nil }
            guard !shape.locked else { skipped.append((expected.id, .locked)); return nil }
            return shape
        }
        /// The shape with `id`, when it exists and no gesture holds it.
        func free(_ id: ShapeID) -> Shape? {
            guard let shape = store.shape(id) else { skipped.append((id, .unknownShape)); return nil }
            guard gesture(on: id) == nil else { skipped.append((id, .shapeLocked)); return nil }
            return shape
        }
        /// `shapes` that may come back: none of their ids is taken since, and only as many as the canvas has
        /// room for (`maxShapes`), so an undo never overfills it (`canvasFull` for the rest).
        func restorable(_ shapes: [Shape]) -> [Shape] {
            var room = config.maxShapes - store.count
            return shapes.filter { shape in
                guard store.slot(of: shape.id) == nil else {
                    skipped.append((shape.id, .changedSince))
                    return false
                }
                guard room > 0 else {
                    skipped.append((shape.id, .canvasFull))
                    return false
                }
                room -= 1
                return true
            }
        }
        let result: CommittedOp?
        switch effect {
        case .create(let shape, _):
            result = unchanged(shape).map { .remove([$0]) }
        case .place(let after, let before):
            guard let before else { return (nil, []) }
            result = unchanged(after.id, after).map { _ in .place(before, before: after) }
        case .restore(let shapes):
            let current = shapes.compactMap { unchanged($0) }
            result = current.isEmpty ? nil : .remove(current)
        case .remove(let shapes), .clear(let shapes):
            let back = restorable(shapes)
            result = back.isEmpty ? nil : .restore(back)
        case .order(let moves):
            // A restack moves nothing: locked shapes go back too, as an `order` may restack them.
            let back = moves.compactMap { move -> ZMove? in
                guard let shape = free(move.id) else { return nil }
                guard shape.z == move.z else { skipped.append((move.id, .changedSince)); return nil }
                return ZMove(id: move.id, z: move.before, before: move.z)
            }
            result = back.isEmpty ? nil : .order(back)
        case .lock(let ids, let locked):
            let back = ids.filter { id in
                guard let shape = free(id) else { return false }
                guard shape.locked == locked else { skipped.append((id, .changedSince)); return false }
                return true
            }
            result = back.isEmpty ? nil : .lock(back, locked: !locked)
        case .edit(let changes):
            // Only the parts a change set go back, each when it is still as the change left it: a group
            // (1.7, P27) and a style or text are independent. A locked shape refuses style and text ops, so
            // its look does not go back either; its group may.
            let back = changes.compactMap { change -> LookChange? in
                guard let shape = free(change.id) else { return nil }
                let now = ShapeLook(of: shape)
                let looks = !change.look.sameLooks(as: change.before), grouping = change.look.group != change.before.group
                guard (!looks || now.sameLooks(as: change.look)), (!grouping || now.group == change.look.group) else {
                    skipped.append((change.id, .changedSince))
                    return nil
                }
                guard !looks || !shape.locked else { skipped.append((change.id, .locked)); return nil }
                var reverted = now
                if looks { (reverted.fill, reverted.style, reverted.text) = (change.before.fill, change.before.style, change.before.text) }
                if grouping { reverted.group = change.before.group }
                return LookChange(id: change.id, look: reverted, before: now)
            }
            result = back.isEmpty ? nil : .edit(back)
        case .arrange(let after, let before):
            let back = zip(after, before).compactMap { now, then -> (Placement, Placement)? in
                guard let shape = unchanged(now.id, now) else { return nil }
                return (then, Placement(of: shape))
            }
            result = back.isEmpty ? nil : .arrange(back.map(\.0), before: back.map(\.1))
        case .reconnect(let after, let before):
            // Its ends and bindings go back; its looks, group and lock stay as they are now.
            result = unchanged(after).map { shape in
                var back = Placement(of: before).applied(to: shape)
                (back.from, back.to) = (before.from, before.to)
                return .reconnect(back, before: shape)
            }
        }
        return (result, skipped)
    }

    /// Commits a resolved effect (what `reverting` gives) as the next op: the same path as replay.
    public mutating func apply(effect: CommittedOp) -> Outcome {
        commit(effect)
    }
}
