import SnapboardCore

/// Canvases the renderer tests draw.
enum RenderFixtures {
    /// One shape of every outline kind (1.7's `text` and `note` are drawn in `LooksRenderTests`), each with
    /// an opaque fill of its own, hatched in turns, on a 1024×768 canvas.
    static func everyKind(id: String = "board") -> CanvasSnapshot {
        let kinds: [ShapeKind] = [.dot, .roundedRect, .oval, .triangle, .polygon(sides: 6), .star(points: 5, innerRatio: 0.4), .fractal(depth: 3)]
        let shapes = kinds.enumerated().map { i, kind in
            Shape(id: kind.name, kind: kind, center: Point(x: 80 + Double(i) * 130, y: 200), size: Size(width: 100, height: 100),
                  scale: 1, rotation: Double(i) * 0.2, fill: HSBColor(h: Double(i) / 7, s: 0.8, b: 0.9, a: 1),
                  hatch: Hatch.allCases[i % 3], z: i)
        }
        return CanvasSnapshot(id: id, config: CanvasConfig(), seq: shapes.count, rng: 1, shapes: shapes)
    }

    /// A canvas of `width × height` holding one opaque square of `fill` centred at `center`.
    static func square(width: Double = 400, height: Double = 300, center: Point = Point(x: 100, y: 80),
                       fill: HSBColor = HSBColor(h: 0.6, s: 0.7, b: 0.8, a: 1)) -> CanvasSnapshot {
        var config = CanvasConfig()
        (config.width, config.height) = (width, height)
        config.gridX = .pitch(min(32, width / 2))
        config.gridY = .pitch(min(32, height / 2))
        let shape = Shape(id: "sq", kind: .roundedRect, center: center, size: Size(width: 40, height: 40), fill: fill, z: 0)
        return CanvasSnapshot(id: "sq", config: config, seq: 1, rng: 1, shapes: [shape])
    }
}
