import SnapboardCore
import SnapboardProtocol

/// Who connects where and does what: pure, so every run with the same seed sends the same ops.
public struct LoadPlan: Sendable, Equatable {
    public var canvases: Int
    /// Clients per canvas.
    public var clients: Int
    /// Draggers per canvas, the first `draggers` clients; the rest only watch.
    public var draggers: Int
    /// Ops per second per dragger.
    public var rate: Double
    /// Shapes each canvas is seeded with before the run.
    public var shapes: Int
    public var seed: UInt64
    /// Ops in every gesture, `begin` and `end` included; nil plans 0.4–1.6 s at `rate`.
    public var gestureSteps: Int?
    /// Every gesture a move (no pinches or rotations).
    public var movesOnly = false
    /// Every dragger on the same schedule, so gestures begin and end all at once; otherwise each dragger's
    /// schedule starts at a random point of the first period, spreading begins and ends out.
    public var aligned = false
    /// What the draggers do: drag, pinch and turn shapes, or edit content (`LoadPlan+Content.swift`).
    public var workload = Workload.drags

    public init(canvases: Int, clients: Int, draggers: Int, rate: Double, shapes: Int, seed: UInt64) {
        self.canvases = canvases
        self.clients = clients
        self.draggers = min(draggers, clients)
        self.rate = rate
        self.shapes = shapes
        self.seed = seed
    }

    /// The canvas id of canvas `index`, distinct per seed so runs against one server do not meet.
    public func canvasName(_ index: Int) -> String { "load-\(seed)-\(index)" }

    /// The stable client id (P1) of client `client` on canvas `canvas`.
    public func clientID(canvas: Int, client: Int) -> String { "load-\(seed)-\(canvas)-\(client)" }

    /// The id of seeded shape `index`.
    public static func shapeID(_ index: Int) -> ShapeID { "L\(index)" }

    /// The shapes dragger `dragger` picks from: its own share when there are at least as many shapes as
    /// draggers (so gestures never meet a lease), otherwise every shape (and some meet `shape_locked`).
    public func shapes(of dragger: Int) -> [ShapeID] {
        guard shapes > 0 else { return [] }
        if shapes >= draggers, draggers > 0 {
            return stride(from: dragger, to: shapes, by: draggers).map(Self.shapeID)
        }
        return (0..<shapes).map(Self.shapeID)
    }

    private static func spec(_ kind: String, w: Double, h: Double? = nil, _ more: (inout ShapeSpec) -> Void = { _ in }) -> ShapeSpec {
        var spec = ShapeSpec(kind: kind)
        spec.width = w
        spec.height = h
        more(&spec)
        return spec
    }

    /// The generator for one client's choices.
    public func generator(canvas: Int, client: Int) -> SeededGenerator {
        SeededGenerator(seed: "\(seed)/\(canvas)/\(client)")
    }

    /// Seed ops a seeding client sends at once, then a second: within the burst and the rate of a session
    /// on a server with the default limits (2,000 ops a second, PROTOCOL.md P29).
    public static let seedBurst = 1_500
    public static let seedRate = 1_500.0

    /// The ops that seed canvas `canvas`: a `clear`, then `shapes` snaps of varied kinds at scattered taps
    /// on a `width` × `height` canvas, then for the content workload the `connectors` arrows, as JSON with
    /// op ids `0.0`, `0.1`, …; client 0 sends them.
    public func seedOps(canvas: Int, width: Double, height: Double) -> [[UInt8]] {
        var rng = SeededGenerator(seed: "\(seed)/\(canvas)/seed")
        var ops = [ClientMessage.op(id: "0.0", .clear).encode()]
        let kinds: [ShapeSpec] = [
            Self.spec("roundedRect", w: 96, h: 64), Self.spec("oval", w: 80, h: 56), Self.spec("triangle", w: 72, h: 72),
            Self.spec("polygon", w: 64, h: 64) { $0.sides = 6 }, Self.spec("star", w: 72, h: 72) { $0.points = 5; $0.innerRatio = 0.5 },
            Self.spec("dot", w: 24),
        ]
        for index in 0..<shapes {
            let x = (Double.random(in: 0.05...0.95, using: &rng) * width).rounded()
            let y = (Double.random(in: 0.05...0.95, using: &rng) * height).rounded()
            let snap = CanvasOp.snap(at: Point(x: x, y: y), shapeID: Self.shapeID(index), spec: kinds[index % kinds.count])
            ops.append(ClientMessage.op(id: "0.\(index + 1)", snap).encode())
        }
        for (k, connect) in connectOps().enumerated() {
            ops.append(ClientMessage.op(id: "0.\(shapes + 1 + k)", connect).encode())
        }
        return ops
    }
}
