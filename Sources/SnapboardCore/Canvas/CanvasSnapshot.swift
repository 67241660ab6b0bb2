/// Everything needed to rebuild a canvas: what checkpoints store and what a joining client is sent.
public struct CanvasSnapshot: Hashable, Sendable, Codable {
    public var id: String
    public var config: CanvasConfig
    /// The sequence number of the last committed operation the snapshot includes.
    public var seq: Int
    /// The colour generator's state.
    public var rng: UInt64
    /// Every shape, bottom to top (by z, then id).
    public var shapes: [Shape]

    public init(id: String, config: CanvasConfig, seq: Int, rng: UInt64, shapes: [Shape]) {
        (self.id, self.config, self.seq, self.rng, self.shapes) = (id, config, seq, rng, shapes)
    }
}

extension Canvas {
    /// The committed state: shapes under a gesture are where their gesture began. Replaying later commits on
    /// this snapshot gives the later committed state.
    public var committedSnapshot: CanvasSnapshot {
        CanvasSnapshot(id: id, config: config, seq: seq, rng: rng.state, shapes: committedShapes)
    }

    /// The canvas's id, config, seq and generator with no shapes: what a welcome says besides them.
    public var committedHeader: CanvasSnapshot {
        CanvasSnapshot(id: id, config: config, seq: seq, rng: rng.state, shapes: [])
    }

    /// The live state, shapes mid-gesture included.
    public var liveSnapshot: CanvasSnapshot {
        CanvasSnapshot(id: id, config: config, seq: seq, rng: rng.state, shapes: shapes)
    }
}

extension CanvasSnapshot {
    /// Why the engine should not take this snapshot, from an import or from storage, or nil: an invalid
    /// config, a seq outside `0…Canvas.maxSeq`, more shapes than `maxShapes`, repeated ids, or a shape that
    /// fails `Shape.problem(in:)` (its kind's parameters, fill, centre, size, scale, rotation or z).
    public var problem: String? {
        if let problem = config.problem { return "config: \(problem)" }
        guard (0...Canvas.maxSeq).contains(seq) else { return "seq must be in 0...\(Canvas.maxSeq)" }
        guard shapes.count <= config.maxShapes else { return "\(shapes.count) shapes, more than maxShapes \(config.maxShapes)" }
        var ids = Set<ShapeID>()
        for shape in shapes {
            guard ids.insert(shape.id).inserted else { return "shape id \(shape.id.prefix(64)) is repeated" }
            if let problem = shape.problem(in: config) { return problem }
        }
        return nil
    }
}
