@testable import SnapboardCore

let alice = Participant(id: "alice")
let bob = Participant(id: "bob")

/// A 1000 × 1000 canvas; grid snapping off unless asked for, so edge snapping can be seen alone.
func makeCanvas(grid: Bool = false, configure: (inout CanvasConfig) -> Void = { _ in }) throws -> Canvas {
    var config = CanvasConfig()
    config.width = 1000
    config.height = 1000
    config.gridX = .divisions(10)
    config.gridY = .divisions(10)
    config.snapping.grid = grid
    configure(&config)
    return try Canvas(id: "test", config: config)
}

/// Shape `a` at (300, 300) and shape `b` at (700, 700), both 100 × 100 rounded rectangles.
func twoShapes(grid: Bool = false) throws -> Canvas {
    var canvas = try makeCanvas(grid: grid)
    try canvas.add("a", at: Point(x: 300, y: 300))
    try canvas.add("b", at: Point(x: 700, y: 700))
    return canvas
}

extension Canvas {
    /// Places a `kind` shape of `w × h` with its centre at the grid intersection nearest `at`.
    @discardableResult
    mutating func add(_ id: ShapeID, at: Point, w: Double = 100, h: Double = 100, kind: String = "roundedRect") throws -> Shape {
        var spec = ShapeSpec(kind: kind)
        spec.width = w
        spec.height = h
        return try apply(.snap(at: at, shapeID: id, spec: spec), by: alice).changed[0]
    }

    /// Puts a shape's centre exactly at `center` through a one-shot move with snapping off.
    mutating func place(_ id: ShapeID, center: Point) throws {
        // At zoom 100 the engage distance is 0.05 units: nothing snaps unless it is already exactly aligned.
        _ = try apply(.move(id, phase: nil, translation: center - shape(id)!.center), by: Participant(id: "setup", zoom: 100))
    }
}

extension Outcome {
    var haptics: [Haptic] { events.compactMap { if case .haptic(let h) = $0 { h } else { nil } } }
    var guides: [Guide] { events.compactMap { if case .guide(let g) = $0 { g } else { nil } } }
}

import Testing

/// Expects `body` to be refused with `code`.
func expectRejection(
    _ code: Rejection.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected \(code.rawValue), but the operation was applied", sourceLocation: sourceLocation)
    } catch let error as Rejection {
        #expect(error.code == code, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a rejection, got \(error)", sourceLocation: sourceLocation)
    }
}
