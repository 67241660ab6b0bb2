/// The ranges every number of a canvas stays in, whether it came from a client, an import or the database.
/// They are chosen so that no arithmetic on them can overflow: a seq or z is at most 2^53 − 1 (the largest
/// integer every JSON client reads exactly), and the engine adds one to either at most once per operation.
extension Canvas {
    /// The largest seq a canvas may hold: 2^53 − 1.
    public static let maxSeq = 9_007_199_254_740_991
    /// Live operations (and undo, redo) are refused with `out_of_range` once the seq reaches this: the
    /// gestures still open then commit (at most one per shape, and a canvas holds at most a million)
    /// without passing `maxSeq`.
    public static let lastLiveSeq = maxSeq - (1 << 20)
    /// A shape's z lies in `-maxZ...maxZ`; a gesture or snap that would stack a shape above it is refused.
    public static let maxZ = 9_007_199_254_740_991
    /// The largest canvas side, shape side and layout padding: a million canvas units.
    public static let maxLength = 1_000_000.0
    /// The most grid divisions per axis.
    public static let maxDivisions = 10_000
}

extension Placement {
    /// Why a shape cannot stand here on a canvas with `config`, or nil: a malformed id, a centre off the
    /// canvas, an unscaled size outside `minSize…maxSize`, a scale whose longer side leaves that range, a
    /// rotation outside `0…2π`, a z outside `±Canvas.maxZ`, or any number that is not finite. A connector's
    /// frame (1.7, P28), `Shape.connectorThickness` high, may be 0…`Shape.maxConnectorLength` long at a
    /// scale in `Shape.connectorScales`, whatever `minSize` and `maxSize` say.
    public func problem(in config: CanvasConfig) -> String? {
        guard Shape.isValidID(id) else { return "shape id \(id.prefix(64)) is malformed" }
        let sizes = (config.minSize * 0.999)...(config.maxSize * 1.001)
        guard center.x.isFinite, center.y.isFinite, (0...config.width).contains(center.x), (0...config.height).contains(center.y) else {
            return "shape \(id) has its centre off the canvas"
        }
        if isConnectorFrame {
            guard (0...Shape.maxConnectorLength).contains(size.width) else { return "connector \(id) is longer than \(Shape.maxConnectorLength)" }
            // The scales a pinch can give a connector (its sides kept within 16…2,000,000), with room to spare:
            // a scale near 0 would make the next pinch's limits infinite.
            guard scale.isFinite, Shape.connectorScales.contains(scale), max(size.width, size.height) * scale <= 2 * Shape.maxConnectorLength else {
                return "connector \(id) has a scale outside \(Shape.connectorScales.lowerBound)…\(Shape.connectorScales.upperBound) or is too long"
            }
        } else {
            guard sizes.contains(size.width), sizes.contains(size.height) else {
            return "shape \(id) has a width or height outside minSize…maxSize"
        }
            let side = max(size.width, size.height) * scale
            guard scale.isFinite, scale > 0, sizes.contains(side) else { return "shape \(id) has a scale that takes it outside minSize…maxSize" }
        }
        guard rotation.isFinite, (0...(2 * Double.pi)).contains(rotation) else { return "shape \(id) has a rotation outside 0…2π" }
        guard (-Canvas.maxZ...Canvas.maxZ).contains(z) else { return "shape \(id) has a z outside ±\(Canvas.maxZ)" }
        return nil
    }

    /// True for a connector's frame: `Shape.connectorThickness` high (1.7, P28).
    public var isConnectorFrame: Bool { size.height == Shape.connectorThickness }

    /// What `problem(in:)` leaves to a placement of a shape whose kind is known: a connector's must be a
    /// connector's frame, and any other shape's must keep to `minSize…maxSize`, however high it is. For a
    /// placement that passed `problem(in:)` already (a log's are checked once each, then again with the kind).
    public func kindProblem(in config: CanvasConfig, connector: Bool) -> String? {
        guard !connector || isConnectorFrame else {
            return "connector \(id.prefix(64)) is placed \(size.height) high, not \(Shape.connectorThickness)"
        }
        if !connector, isConnectorFrame {
            let sizes = (config.minSize * 0.999)...(config.maxSize * 1.001)
            guard sizes.contains(size.width), sizes.contains(size.height), sizes.contains(max(size.width, size.height) * scale) else {
                return "shape \(id.prefix(64)) is placed at a size outside minSize…maxSize"
            }
        }
        return nil
    }
}

extension Shape {
    /// Why this shape cannot be on a canvas with `config`, or nil: its kind's parameters, its fill, or its
    /// placement (`Placement.problem(in:)`).
    public func problem(in config: CanvasConfig) -> String? {
        do throws(Rejection) {
            _ = try ShapeKind.make(name: kind.name, sides: kind.sides, points: kind.points, innerRatio: kind.innerRatio, depth: kind.depth)
        } catch {
            return "shape \(id.prefix(64)): \(error.message)"
        }
        if let problem = ShapeLook(of: self).problem { return "shape \(id.prefix(64)) \(problem)" }
        if kind.isConnector {
            guard size.height == Shape.connectorThickness else { return "connector \(id.prefix(64)) is not \(Shape.connectorThickness) high" }
            for binding in [from, to].compactMap({ $0 }) {
                guard Shape.isValidID(binding.shape) else { return "connector \(id.prefix(64)) is bound to a malformed shape id" }
                guard binding.anchor.isValid else { return "connector \(id.prefix(64)) has an anchor outside -0.5...0.5" }
            }
        } else if from != nil || to != nil {
            return "shape \(id.prefix(64)) is bound like a connector but is a \(kind.name)"
        }
        return Placement(of: self).problem(in: config)
    }
}

extension ShapeLook {
    /// Why this look cannot be on a canvas, or nil: a fill component outside 0…1, a style number out of
    /// its range (`ShapeStyle.problem`), or a text `ShapeText` refuses.
    public var problem: String? {
        guard fill.isValid else { return "has a fill component outside 0…1" }
        if let problem = style.problem { return "has a \(problem)" }
        guard ShapeText.isValid(text) else { return "has a text over \(ShapeText.maxBytes) bytes or with a control character" }
        guard ShapeGroup.isValid(group) else { return "has a malformed group id" }
        return nil
    }
}

extension CommittedOp {
    /// Why this logged effect cannot be replayed on a canvas with `config`, or nil: every shape and
    /// placement it carries must pass the same checks as a snapshot's shapes.
    public func problem(in config: CanvasConfig) -> String? {
        switch self {
        case .create(let shape, _):
            return shape.problem(in: config)
        case .place(let after, let before):
            return after.problem(in: config) ?? before?.problem(in: config)
        case .clear(let shapes), .remove(let shapes), .restore(let shapes):
            guard shapes.count <= 1_000_000 else { return "\(shapes.count) shapes in one effect" }
            for shape in shapes { if let problem = shape.problem(in: config) { return problem } }
            return nil
        case .order(let moves):
            guard moves.count <= 1_000_000 else { return "\(moves.count) shapes in one effect" }
            for move in moves {
                guard Shape.isValidID(move.id) else { return "shape id \(move.id.prefix(64)) is malformed" }
                let zs = -Canvas.maxZ...Canvas.maxZ
                guard zs.contains(move.z), zs.contains(move.before) else { return "shape \(move.id) has a z outside ±\(Canvas.maxZ)" }
            }
            return nil
        case .lock(let ids, _):
            guard ids.count <= 1_000_000 else { return "\(ids.count) shapes in one effect" }
            for id in ids where !Shape.isValidID(id) { return "shape id \(id.prefix(64)) is malformed" }
            return nil
        case .edit(let changes):
            guard changes.count <= 1_000_000 else { return "\(changes.count) shapes in one effect" }
            for change in changes {
                guard Shape.isValidID(change.id) else { return "shape id \(change.id.prefix(64)) is malformed" }
                if let problem = change.look.problem ?? change.before.problem { return "shape \(change.id) \(problem)" }
            }
            return nil
        case .arrange(let after, let before):
            guard after.count == before.count, after.count <= 1_000_000 else { return "an arrange of \(after.count) placements and \(before.count) befores" }
            for (a, b) in zip(after, before) {
                guard a.id == b.id else { return "an arrange pairs \(a.id.prefix(64)) with \(b.id.prefix(64))" }
                if let problem = a.problem(in: config) ?? b.problem(in: config) { return problem }
            }
            return nil
        case .reconnect(let after, let before):
            guard after.kind.isConnector, after.id == before.id else { return "a reconnect of \(after.id.prefix(64)) is not one connector's" }
            return after.problem(in: config) ?? before.problem(in: config)
        }
    }
}
