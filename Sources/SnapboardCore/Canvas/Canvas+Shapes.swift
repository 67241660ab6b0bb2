/// Operations that add and remove shapes: a snap creates one, a clear or a delete removes them.
extension Canvas {
    mutating func snap(at tap: Point, shapeID: ShapeID?, spec: ShapeSpec) throws(Rejection) -> Outcome {
        try Canvas.requireFinite(tap.x, tap.y, spec.width ?? 0, spec.height ?? 0, spec.innerRatio ?? 0.5)
        guard Rect(x: 0, y: 0, width: config.width, height: config.height).contains(tap) else {
            throw Rejection(.outOfBounds, "tap lies outside the canvas")
        }
        if let shapeID {
            guard Shape.isValidID(shapeID) else { throw Rejection(.badShapeID, "shape ids are 1–64 of [A-Za-z0-9_-]") }
            guard store.slot(of: shapeID) == nil else { throw Rejection(.badShapeID, "shape \(shapeID) already exists") }
        }
        guard store.count < config.maxShapes else { throw Rejection(.canvasFull, "the canvas holds \(config.maxShapes) shapes") }
        let kind = try ShapeKind.make(
            name: spec.kind, sides: spec.sides, points: spec.points, innerRatio: spec.innerRatio, depth: spec.depth)
        guard !kind.isConnector else { throw Rejection(.badShape, "a \(kind.name) is drawn with connect, not snapped") }
        let side = ShapeSpec.defaultSize(for: kind)
        var size = Size(width: spec.width ?? side.width, height: kind == .dot ? spec.width ?? side.width : spec.height ?? side.height)
        let sizes = config.minSize...config.maxSize
        guard sizes.contains(size.width), sizes.contains(size.height) else {
            throw Rejection(.badShape, "width and height must be within \(config.minSize)...\(config.maxSize)")
        }
        if let fill = spec.fill, !fill.isValid { throw Rejection(.badShape, "fill components must be within 0...1") }
        try spec.style.validate()
        if let text = spec.text { try ShapeText.validate(text) }
        try requireZRoom()

        var center = grid.snap(tap)
        if let layout {
            guard let frame = freeCell(layout, near: tap) else {
                throw Rejection(.layoutFull, "every cell of the layout holds a shape")
            }
            center = frame.center
            size = fitted(kind, size, to: frame.size, limits: sizes)
        }

        // Validated: from here on the operation commits.
        let fill: HSBColor
        switch (spec.fill, spec.style.fill, kind) {
        case (let given?, nil, _): fill = given
        case (let given, let rgb?, _): fill = HSBColor(rgb: rgb, alpha: given?.a ?? Canvas.newAlpha(kind))
        case (nil, nil, .note): fill = HSBColor(rgb: Palette.noteFill, alpha: 1)
        case (nil, nil, .text): fill = HSBColor(h: 0, s: 0, b: 1, a: 0)
        case (nil, nil, _): fill = .seedDefault(hue: rng.nextUnit())
        }
        var blank = Shape(id: "", kind: kind, center: center, size: size, fill: fill, z: 0)
        (_, blank.style) = StylePatch(stroke: spec.style.stroke, strokeWidth: spec.style.strokeWidth,
                                      opacity: spec.style.opacity, fontSize: spec.style.fontSize).applied(to: blank)
        let (shape, _) = keptIn(Shape(
            id: shapeID ?? freshID(), kind: kind, center: center, size: size,
            fill: fill, hatch: spec.hatch ?? .none, z: nextZ, style: blank.style, text: spec.text ?? ""))
        return commit(.create(shape, rng: rng.state))
    }

    /// The fill alpha of a new shape given a colour but no alpha: opaque notes, clear text, 0.8 otherwise
    /// (seed 004's default).
    static func newAlpha(_ kind: ShapeKind) -> Double {
        switch kind {
        case .note: 1
        case .text: 0
        default: 0.8
        }
    }

    /// `s<next seq>`, suffixed if a client already took that id (or it is in `avoiding`).
    func freshID(avoiding: Set<ShapeID> = []) -> ShapeID {
        let base = "s\(seq + 1)"
        var candidate = base, n = 1
        while store.slot(of: candidate) != nil || avoiding.contains(candidate) {
            candidate = "\(base)-\(n)"
            n += 1
        }
        return candidate
    }

    mutating func clear() -> Outcome {
        commit(.clear(removed: committedShapes))
    }

    /// The most shapes one `delete` may name.
    public static let maxDeleted = 1_000

    /// Removes `ids`, all or none: each must exist, be unlocked and be free of other sessions' gestures. A gesture the
    /// participant itself holds on one of them ends with it.
    mutating func delete(_ ids: [ShapeID], by participant: Participant) throws(Rejection) -> Outcome {
        guard (1...Canvas.maxDeleted).contains(ids.count) else {
            throw Rejection(.outOfRange, "delete names 1–\(Canvas.maxDeleted) shapes")
        }
        var seen = Set<ShapeID>(), shapes: [Shape] = []
        for id in ids where seen.insert(id).inserted {
            guard let shape = store.shape(id) else { throw Rejection(.unknownShape, "no shape \(id.prefix(64))") }
            if let owner = gesture(on: id)?.owner, owner != participant.id {
                throw Rejection(.shapeLocked, "another session is changing shape \(id)")
            }
            if shape.locked { throw Rejection(.locked, "shape \(id) is locked") }
            shapes.append(shape)
        }
        return commit(.remove(shapes))
    }
}
