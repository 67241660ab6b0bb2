/// Operations on selections (1.7, P27): `group` and `ungroup` set which shapes select together, and
/// `duplicate` copies shapes.
extension Canvas {
    /// Puts the named shapes, and every member of a group one of them is in, in one new group, all or none:
    /// 2–`maxNamed` shapes in all (`out_of_range`), each existing (`unknown_shape`) and under no gesture or
    /// text edit (`shape_locked`). Groups are flat: the groups they were in are dissolved into the new one.
    /// Already exactly one group: unchanged.
    mutating func group(_ ids: [ShapeID]) throws(Rejection) -> Outcome {
        let shapes = try withTheirGroups(try named(ids, "group"))
        guard shapes.count >= 2 else { throw Rejection(.outOfRange, "a group holds 2–\(Canvas.maxNamed) shapes") }
        let first = shapes[0].group
        if first != nil, shapes.allSatisfy({ $0.group == first }) { return unchangedOutcome }
        return regroup(shapes, as: freshGroupID())
    }

    /// Dissolves every group one of the named shapes is in (1–`maxNamed` named, and at most `maxNamed`
    /// members in all): each member, named or not, must be under no gesture or text edit. Unchanged when
    /// none is in a group.
    mutating func ungroup(_ ids: [ShapeID]) throws(Rejection) -> Outcome {
        regroup(try withTheirGroups(try named(ids, "ungroup")), as: nil)
    }

    /// `shapes` and every other member of their groups, in drawing order; refused when that is more than
    /// `maxNamed` (`out_of_range`) or a member is under a gesture (`shape_locked`).
    private func withTheirGroups(_ shapes: [Shape]) throws(Rejection) -> [Shape] {
        let groups = Set(shapes.compactMap(\.group))
        var all = Dictionary(shapes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        if !groups.isEmpty {
            for shape in store.shapes where all[shape.id] == nil {
                guard let group = shape.group, groups.contains(group) else { continue }
                guard all.count < Canvas.maxNamed else { throw Rejection(.outOfRange, "a group holds 2–\(Canvas.maxNamed) shapes") }
                guard gesture(on: shape.id) == nil else { throw Rejection(.shapeLocked, "a gesture is in progress on shape \(shape.id)") }
                all[shape.id] = shape
            }
        }
        return all.values.sorted(by: Canvas.drawingOrder)
    }

    private mutating func regroup(_ shapes: [Shape], as group: String?) -> Outcome {
        let changes = shapes.filter { $0.group != group }.map { shape in
            var look = ShapeLook(of: shape)
            look.group = group
            return LookChange(id: shape.id, look: look, before: ShapeLook(of: shape))
        }
        return changes.isEmpty ? unchangedOutcome : commit(.edit(changes))
    }

    /// `g` and the next seq, suffixed while a shape already carries it (an import may hold any group id),
    /// or `extra` when given.
    private func freshGroupID(_ n: Int = 0, avoiding extra: Set<String> = []) -> String {
        let base = n == 0 ? "g\(seq + 1)" : "g\(seq + 1)-\(n)"
        var taken = extra
        for shape in store.shapes { if let g = shape.group, g.hasPrefix(base) { taken.insert(g) } }
        var candidate = base, k = 1
        while taken.contains(candidate) {
            candidate = "\(base)-\(k)"
            k += 1
        }
        return candidate
    }

    /// Copies the named shapes (1–`maxNamed`, else `out_of_range`; each existing, else `unknown_shape`)
    /// one grid step right and down, stacked above every shape in their own order, unlocked, with their
    /// looks and text; the copies of one group form a new group, and copied connectors bind to the copies of
    /// their shapes (P28). On a layout canvas each copy but a connector goes to the free cell nearest that
    /// point (`layout_full` when none is left); on a bounded canvas it is kept inside.
    /// `newIDs`, when given, names the copies in the order the originals were first named (each valid and
    /// free, else `bad_shape_id`); otherwise the server names them `s` and the seq, suffixed. All or none:
    /// the canvas must hold them all (`canvas_full`) and have z room for them (`out_of_range`). A shape
    /// under a gesture is copied as it was committed.
    mutating func duplicate(_ ids: [ShapeID], as newIDs: [ShapeID]?) throws(Rejection) -> Outcome {
        guard (1...Canvas.maxNamed).contains(ids.count) else { throw Rejection(.outOfRange, "duplicate names 1–\(Canvas.maxNamed) shapes") }
        var seen = Set<ShapeID>(), originals: [Shape] = []
        for id in ids where seen.insert(id).inserted {
            guard let shape = gesture(on: id)?.committed ?? store.shape(id) else { throw Rejection(.unknownShape, "no shape \(id.prefix(64))") }
            originals.append(shape)
        }
        var names: [ShapeID: ShapeID] = [:]
        if let newIDs {
            guard newIDs.count == originals.count else {
                throw Rejection(.badShapeID, "ids names one new id for each shape named, in the order first named")
            }
            var chosen = Set<ShapeID>()
            for (original, id) in zip(originals, newIDs) {
                guard Shape.isValidID(id) else { throw Rejection(.badShapeID, "shape ids are 1–64 of [A-Za-z0-9_-]") }
                guard store.slot(of: id) == nil, chosen.insert(id).inserted else { throw Rejection(.badShapeID, "shape \(id) already exists") }
                names[original.id] = id
            }
        }
        guard store.count + originals.count <= config.maxShapes else { throw Rejection(.canvasFull, "the canvas holds \(config.maxShapes) shapes") }
        try requireZRoom(originals.count)
        let step = Point(x: grid.x.position(1), y: grid.y.position(1))
        var cells = layout.map { LayoutCells($0, of: self) }
        var taken = Set(names.values), groups: [String: String] = [:], copies: [Shape] = []
        let ordered = originals.sorted(by: Canvas.drawingOrder)
        var copyOf: [ShapeID: ShapeID] = [:]
        for original in ordered {
            let id = names[original.id] ?? freshID(avoiding: taken)
            taken.insert(id)
            copyOf[original.id] = id
        }
        for (n, original) in ordered.enumerated() {
            var copy = original
            copy.id = copyOf[original.id]!
            copy.center = Point(x: min(original.center.x + step.x, config.width), y: min(original.center.y + step.y, config.height))
            // A connector's ends bound inside the selection bind to the copies; the others stay where they were
            // bound (P28). Its ends are laid again as the copies are restored.
            for end in ConnectorEnd.allCases {
                guard var binding = original.binding(end), let target = copyOf[binding.shape] else { continue }
                binding.shape = target
                copy.setBinding(binding, end)
            }
            if cells != nil, !copy.kind.isConnector {
                guard let frame = cells!.take(near: copy.center) else { throw Rejection(.layoutFull, "every cell of the layout holds a shape") }
                copy.center = frame.center
            }
            copy.z = nextZ + n
            copy.locked = false
            if let group = original.group {
                if groups[group] == nil { groups[group] = freshGroupID(groups.count + 1, avoiding: Set(groups.values)) }
                copy.group = groups[group]
            }
            copies.append(keptIn(copy).0)
        }
        return commit(.restore(copies))
    }
}
