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
