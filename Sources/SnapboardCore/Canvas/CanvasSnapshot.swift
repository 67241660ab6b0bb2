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
    /// Why the engine should not take this snapshot from outside (an import), or nil: an invalid config, a
    /// negative seq, more shapes than `maxShapes`, repeated or malformed ids, or a shape whose numbers are
    /// out of range (its kind's parameters, its fill, a size outside `minSize…maxSize`, a centre off the
    /// canvas, a scale or rotation that is not finite).
    public var problem: String? {
        if let problem = config.problem { return "config: \(problem)" }
        guard seq >= 0 else { return "seq must be at least 0" }
        guard shapes.count <= config.maxShapes else { return "\(shapes.count) shapes, more than maxShapes \(config.maxShapes)" }
        var ids = Set<ShapeID>()
        for shape in shapes {
            guard Shape.isValidID(shape.id), ids.insert(shape.id).inserted else { return "shape id \(shape.id) is malformed or repeated" }
            do throws(Rejection) {
                _ = try ShapeKind.make(name: shape.kind.name, sides: shape.kind.sides, points: shape.kind.points,
                                       innerRatio: shape.kind.innerRatio, depth: shape.kind.depth)
            } catch {
                return "shape \(shape.id): \(error.message)"
            }
            let side = max(shape.size.width, shape.size.height) * shape.scale
            guard shape.fill.isValid, shape.center.x.isFinite, shape.center.y.isFinite, (0...config.width).contains(shape.center.x),
                  (0...config.height).contains(shape.center.y), shape.size.width > 0, shape.size.height > 0, shape.scale > 0,
                  side.isFinite, side >= config.minSize * 0.999, side <= config.maxSize * 1.001, shape.rotation.isFinite
            else { return "shape \(shape.id) has a fill, centre, size, scale or rotation out of range" }
        }
        return nil
    }
}
