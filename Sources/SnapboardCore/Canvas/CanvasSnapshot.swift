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
        var kinds: [ShapeID: ShapeKind] = [:]
        for shape in shapes {
            guard kinds.updateValue(shape.kind, forKey: shape.id) == nil else { return "shape id \(shape.id.prefix(64)) is repeated" }
            if let problem = shape.problem(in: config) { return problem }
        }
        // Every bound end names a shape here that is no connector, and no shape holds too many (P28).
        var ends: [ShapeID: Int] = [:]
        for shape in shapes {
            for binding in [shape.from, shape.to].compactMap({ $0 }) {
                guard let kind = kinds[binding.shape], !kind.isConnector else {
                    return "connector \(shape.id) is bound to \(binding.shape.prefix(64)), which is no shape of the canvas"
                }
                ends[binding.shape, default: 0] += 1
                guard ends[binding.shape]! <= Canvas.maxBoundEnds else { return "shape \(binding.shape) holds more than \(Canvas.maxBoundEnds) connector ends" }
            }
        }
        return nil
    }
}
