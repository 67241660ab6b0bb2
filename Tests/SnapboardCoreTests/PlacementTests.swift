import Foundation
import PropertyBased
import Testing

@testable import SnapboardCore

/// True when `inner` lies inside `outer`, allowing for the rounding of recomputed bounds.
private func inside(_ inner: Rect, _ outer: Rect, tolerance: Double = 1e-9) -> Bool {
    inner.minX >= outer.minX - tolerance && inner.minY >= outer.minY - tolerance
        && inner.maxX <= outer.maxX + tolerance && inner.maxY <= outer.maxY + tolerance
}

@Suite("Exact moves (P13, snap:false)")
struct ExactMoveTests {
    @Test("[P13] A one-shot move with snap:false moves by exactly dx, dy, where a snapping move would catch an edge and a gridline")
    func exactOneShot() throws {
        var canvas = try twoShapes(grid: true)
        // a's right edge ends at 598, 2 short of the gridline at 600; its centre 3 below the gridline at 300.
        let t = Point(x: 248, y: 3)
        var snapping = canvas
        let snapped = try snapping.apply(.move("a", phase: nil, translation: t), by: alice)
        #expect(snapping.shape("a")!.center != Point(x: 548, y: 303), "the snapping move must catch something for this test to mean anything")
        #expect(!snapped.haptics.isEmpty)

        let exact = try canvas.apply(.move("a", phase: nil, translation: t, snap: false), by: alice)
        #expect(canvas.shape("a")!.center == Point(x: 548, y: 303))
        #expect(exact.events.isEmpty)
        #expect(exact.commit != nil)
    }

    @Test("[P13] Grid-step nudges with snap:false add up exactly and never move the other axis")
    func nudgesAddUp() throws {
        var canvas = try makeCanvas(grid: true)
        try canvas.add("a", at: Point(x: 300, y: 300))
        for _ in 0..<7 { _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: -100, y: 0), snap: false), by: alice) }
        // Seven steps left from x 300 stop at the edge: the shape's left edge at 0, y untouched.
        #expect(canvas.shape("a")!.center == Point(x: 50, y: 300))
        _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: 0, y: 3.5), snap: false), by: alice)
        #expect(canvas.shape("a")!.center == Point(x: 50, y: 303.5))
    }

    @Test("[P13] snap:false on a begin holds for the whole gesture; on an update it turns snapping off from then on")
    func exactGesture() throws {
        var canvas = try twoShapes(grid: true)
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero, snap: false), by: alice)
        let update = try canvas.apply(.move("a", phase: .update, translation: Point(x: 248, y: 3)), by: alice)
        #expect(update.events.isEmpty)
        #expect(canvas.shape("a")!.center == Point(x: 548, y: 303))
        let end = try canvas.apply(.move("a", phase: .end, translation: Point(x: 248, y: 3)), by: alice)
        guard case .place(let placed, let before)? = end.commit else { Issue.record("the end did not commit a placement"); return }
        #expect(placed.center == Point(x: 548, y: 303) && before?.center == Point(x: 300, y: 300))
        #expect(canvas.shape("a")!.center == Point(x: 548, y: 303))

        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: bob)
        let snapped = try canvas.apply(.move("b", phase: .update, translation: Point(x: 3, y: 0)), by: bob)
        #expect(!snapped.events.isEmpty, "a snapping drag of b catches the gridline through x 700")
        _ = try canvas.apply(.move("b", phase: .update, translation: Point(x: 3, y: 0), snap: false), by: bob)
        #expect(canvas.shape("b")!.center == Point(x: 703, y: 700))
        let later = try canvas.apply(.move("b", phase: .update, translation: Point(x: 2, y: 0)), by: bob)
        #expect(later.events.isEmpty)
        #expect(canvas.shape("b")!.center == Point(x: 702, y: 700))
    }
}

@Suite("Layout cells: one shape to a cell (P3)")
struct LayoutCellTests {
    /// A 3 × 3 flexible layout on the 1000 × 1000 test canvas: square cells of 320 with a padding of 10.
    func layoutCanvas(fill: Bool = false, rows: Int = 3, columns: Int = 3) throws -> Canvas {
        try makeCanvas { $0.layout = .flexible(rows: rows, columns: columns); $0.layoutPadding = 10; $0.layoutFill = fill }
    }

    func cellOf(_ canvas: Canvas, _ id: ShapeID) -> (row: Int, column: Int) {
        let cell = canvas.layout!.cell(at: canvas.shape(id)!.center)
        return (cell.row, cell.column)
    }

    @Test("[P3] A tap on a taken cell places the shape in the nearest free cell: by centre distance, then row, then column")
    func nearestFreeCell() throws {
        var canvas = try layoutCanvas()
        let middle = Point(x: 500, y: 500)
        try canvas.add("a", at: middle)
        #expect(cellOf(canvas, "a") == (1, 1))
        // The four side neighbours are equally near: the smaller row wins, so the cell above.
        try canvas.add("b", at: middle)
        #expect(cellOf(canvas, "b") == (0, 1))
        // Left and right of the middle tie on row 1: the smaller column wins.
        try canvas.add("c", at: middle)
        #expect(cellOf(canvas, "c") == (1, 0))
        try canvas.add("d", at: middle)
        #expect(cellOf(canvas, "d") == (1, 2))
        try canvas.add("e", at: middle)
        #expect(cellOf(canvas, "e") == (2, 1))
        // Then the corners, the same way.
        try canvas.add("f", at: middle)
        #expect(cellOf(canvas, "f") == (0, 0))
    }

    @Test("[P3] Nearest is measured between cell centres, so on wide cells a free cell in the next row beats one two columns away")
    func nearestUsesDistance() throws {
        // 5 rows × 2 columns on 1000 × 1000: cells 485 wide and 188 tall, so centres are 495 apart across
        // and 198 apart down. A free cell two rows down (396 away) beats the next column (495 away).
        var canvas = try layoutCanvas(rows: 5, columns: 2)
        let layout = canvas.layout!
        #expect(layout.cellSize == Size(width: 485, height: 188))
        let start = layout.cellRect(row: 0, column: 0)!.center
        try canvas.add("a", at: start)
        try canvas.add("b", at: layout.cellRect(row: 1, column: 0)!.center)
        try canvas.add("c", at: start)
        #expect(cellOf(canvas, "c") == (2, 0))
    }

    @Test("[P7] A tap on a full layout is refused layout_full and leaves the canvas unchanged")
    func fullLayout() throws {
        var canvas = try layoutCanvas(rows: 2, columns: 2)
        for id in ["a", "b", "c", "d"] { try canvas.add(id, at: Point(x: 10, y: 10)) }
        #expect(Set(canvas.shapes.map { cellOf(canvas, $0.id).row * 2 + cellOf(canvas, $0.id).column }) == [0, 1, 2, 3])
        let before = canvas.liveSnapshot
        expectRejection(.layoutFull) { try canvas.add("e", at: Point(x: 700, y: 700)) }
        #expect(canvas.liveSnapshot == before)
        // A delete frees a cell, and the next tap anywhere finds it.
        _ = try canvas.apply(.delete(["c"]), by: alice)
        try canvas.add("e", at: Point(x: 10, y: 10))
        #expect(cellOf(canvas, "e") == (1, 0))
    }

    @Test("[P3] A finished move onto a taken cell goes to the nearest free cell to the drop; its own cell counts as free")
    func dropOnTakenCell() throws {
        var canvas = try layoutCanvas()
        let layout = canvas.layout!
        try canvas.add("a", at: layout.cellRect(row: 0, column: 0)!.center)
        try canvas.add("b", at: layout.cellRect(row: 0, column: 2)!.center)
        // a dropped on b's cell: the nearest free cell to (0, 2) is (0, 1), a's own cell is further.
        _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: 660, y: 0), snap: false), by: alice)
        #expect(cellOf(canvas, "a") == (0, 1))
        #expect(cellOf(canvas, "b") == (0, 2))
        // Dropped a little off its own centre, a stays in its own cell.
        _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: 40, y: 40)), by: alice)
        #expect(canvas.shape("a")!.center == layout.cellRect(row: 0, column: 1)!.center)
    }

    @Test("[P3] With no other free cell a dropped shape goes back to where it was before the gesture")
    func dropOnFullLayout() throws {
        // An imported canvas may hold two shapes in one cell: a and b share (0, 0), c holds (0, 1).
        var config = try layoutCanvas(rows: 1, columns: 2).config
        config.layoutFill = true
        let cells = try Canvas(id: "full", config: config).layout!
        func shape(_ id: ShapeID, _ column: Int, z: Int) -> Shape {
            let frame = cells.cellRect(row: 0, column: column)!
            return Shape(id: id, kind: .roundedRect, center: frame.center, size: frame.size, fill: HSBColor(h: 0, s: 0, b: 0, a: 1), z: z)
        }
        var canvas = try Canvas(snapshot: CanvasSnapshot(id: "full", config: config, seq: 3, rng: 1,
                                                         shapes: [shape("a", 0, z: 0), shape("b", 0, z: 1), shape("c", 1, z: 2)]))
        let before = canvas.shape("a")!
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 500, y: 0)), by: alice)
        let end = try canvas.apply(.move("a", phase: .end, translation: Point(x: 500, y: 0)), by: alice)
        // Back where it was committed, z included: nothing commits (P14).
        #expect(canvas.shape("a")! == before)
        #expect(end.commit == nil && end.unchanged && end.seq == 3 && canvas.seq == 3)
    }

    @Test("[P3] A fitted shape keeps its aspect ratio inside the cell; with fill it takes the cell's size; a dot stays round")
    func aspectRatio() throws {
        // 2 rows × 2 columns on 1000 × 500 (set below): cells of 485 × 235.
        func canvas(fill: Bool) throws -> Canvas {
            try makeCanvas {
                $0.height = 500
                $0.layout = .flexible(rows: 2, columns: 2)
                $0.layoutPadding = 10
                $0.layoutFill = fill
            }
        }
        var kept = try canvas(fill: false)
        let cell = kept.layout!.cellSize
        #expect(cell == Size(width: 485, height: 235))
        let wide = try kept.add("wide", at: Point(x: 100, y: 100), w: 100, h: 20)
        #expect(abs(wide.size.width - 485) < 1e-9 && abs(wide.size.height - 97) < 1e-9)
        let tall = try kept.add("tall", at: Point(x: 600, y: 100), w: 40, h: 80)
        #expect(tall.size == Size(width: 117.5, height: 235))
        let dot = try kept.add("dot", at: Point(x: 100, y: 400), w: 30, kind: "dot")
        #expect(dot.size == Size(width: 235, height: 235))
        // A finished move refits with the shape's own proportions, not the ones of the cell it left.
        _ = try kept.apply(.move("tall", phase: nil, translation: Point(x: 0, y: 250), snap: false), by: alice)
        #expect(kept.shape("tall")!.size == Size(width: 117.5, height: 235))

        var filled = try canvas(fill: true)
        #expect(try filled.add("wide", at: Point(x: 100, y: 100), w: 100, h: 20).size == cell)
        #expect(try filled.add("dot", at: Point(x: 600, y: 100), kind: "dot").size == Size(width: 235, height: 235))
    }
}

@Suite("Bounded canvases (P3)")
struct BoundedTests {
    let frame = Rect(x: 0, y: 0, width: 1000, height: 1000)

    @Test("[P3] On a bounded canvas a move past an edge stops with the shape's bounds at the edge, live and committed")
    func movesStayInside() throws {
        var canvas = try twoShapes()
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: alice)
        let live = try canvas.apply(.move("a", phase: .update, translation: Point(x: -290, y: 900)), by: alice)
        #expect(live.changed[0].center == Point(x: 50, y: 950))
        _ = try canvas.apply(.move("a", phase: .end, translation: Point(x: -290, y: 900)), by: alice)
        #expect(canvas.shape("a")!.center == Point(x: 50, y: 950))
        _ = try canvas.apply(.move("b", phase: nil, translation: Point(x: 5000, y: -5000), snap: false), by: alice)
        #expect(canvas.shape("b")!.center == Point(x: 950, y: 50))
        #expect(canvas.shapes.allSatisfy { inside($0.bounds, frame) })
    }

    @Test("[P3] A scale or a turn near an edge translates the shape back in, never resizes it; a shape larger than the canvas is centred")
    func scalesAndTurnsStayInside() throws {
        var canvas = try makeCanvas()
        try canvas.add("a", at: Point(x: 100, y: 100))
        _ = try canvas.apply(.scale("a", phase: nil, factor: 3, anchor: nil), by: alice)
        let scaled = canvas.shape("a")!
        #expect(scaled.scale == 3)
        #expect(scaled.center == Point(x: 150, y: 150))
        #expect(inside(scaled.bounds, frame))

        try canvas.add("b", at: Point(x: 900, y: 900), w: 190, h: 20)
        _ = try canvas.apply(.move("b", phase: nil, translation: Point(x: 0, y: 89), snap: false), by: alice)
        #expect(canvas.shape("b")!.center == Point(x: 900, y: 989))
        _ = try canvas.apply(.rotate("b", phase: .begin, radians: 0), by: alice)
        let turned = try canvas.apply(.rotate("b", phase: .update, radians: .pi / 2), by: alice)
        #expect(inside(turned.changed[0].bounds, frame))
        #expect(turned.changed[0].size == Size(width: 190, height: 20))
        _ = try canvas.apply(.rotate("b", phase: .end, radians: .pi / 2), by: alice)
        #expect(inside(canvas.shape("b")!.bounds, frame))

        // 500 × 10 scaled by 3 is 1500 wide: centred across the 1000-wide canvas, kept inside vertically.
        try canvas.add("c", at: Point(x: 800, y: 500), w: 500, h: 10)
        _ = try canvas.apply(.scale("c", phase: nil, factor: 3, anchor: Point(x: 990, y: 500)), by: alice)
        let wide = canvas.shape("c")!
        #expect(wide.scale == 3)
        #expect(abs(wide.center.x - 500) < 1e-9)
        #expect(wide.bounds.minY >= 0 && wide.bounds.maxY <= 1000)
    }

    @Test("[P3] A tap at a corner places the whole shape on a bounded canvas")
    func tapsStayInside() throws {
        var canvas = try makeCanvas(grid: true)
        let shape = try canvas.add("a", at: Point(x: 0, y: 1000), w: 300, h: 300)
        #expect(shape.center == Point(x: 150, y: 850))
    }

    @Test("[P3] On an unbounded canvas shapes may hang outside, their centre still on the canvas")
    func unboundedAllowsOutside() throws {
        var canvas = try makeCanvas(grid: true) { $0.bounded = false }
        let shape = try canvas.add("a", at: Point(x: 0, y: 1000), w: 300, h: 300)
        #expect(shape.center == Point(x: 100, y: 900))
        #expect(shape.bounds.minX < 0 && shape.bounds.maxY > 1000)
        _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: -90, y: 0), snap: false), by: alice)
        #expect(canvas.shape("a")!.center == Point(x: 10, y: 900))
        _ = try canvas.apply(.move("a", phase: nil, translation: Point(x: -500, y: 500), snap: false), by: alice)
        #expect(canvas.shape("a")!.center == Point(x: 0, y: 1000))
    }

    @Test("[P3] A config stored before bounded and fill existed decodes with bounded true and fill false")
    func oldConfigsDecode() throws {
        var config = CanvasConfig()
        config.bounded = false
        config.layoutFill = true
        let data = try JSONEncoder().encode(config)
        #expect(try JSONDecoder().decode(CanvasConfig.self, from: data) == config)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["bounded"] = nil
        object["layoutFill"] = nil
        let old = try JSONDecoder().decode(CanvasConfig.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(old.bounded && !old.layoutFill)
        #expect(old.width == config.width && old.snapping == config.snapping)
    }

    @Test("Property: on bounded layout and grid canvases, with exact and snapping moves, replaying the log gives the committed state, every shape inside")
    func replayWithExactMovesAndLayouts() async {
        await propertyCheck(count: 30, input: Gen.uint64(), Gen.bool()) { seed, layout in
            var config = CanvasConfig()
            config.width = 1000
            config.height = 1000
            if layout { config.layout = .flexible(rows: 4, columns: 3) }
            var live = try Canvas(id: "placed", config: config)
            let start = live.committedSnapshot
            var session = RandomSession(seed: seed)
            var coin = SeededGenerator(state: seed ^ 0x5EED)
            var log: [CommittedOp] = []
            for _ in 0..<300 {
                var (op, who) = session.next(on: live)
                if case .move(let id, let phase, let t, _) = op, Bool.random(using: &coin) {
                    op = .move(id, phase: phase, translation: t, snap: false)
                }
                if let commit = try? live.apply(op, by: who).commit { log.append(commit) }
            }
            for who in session.participants { log += live.endGestures(ownedBy: who.id).compactMap(\.commit) }
            var recovered = try Canvas(snapshot: start)
            recovered.replay(contentsOf: log)
            #expect(recovered.committedSnapshot == live.committedSnapshot, "seed \(seed)")
            #expect(live.shapes.allSatisfy { inside($0.bounds, frame, tolerance: 1e-6) || $0.bounds.width > 1000 || $0.bounds.height > 1000 },
                    "seed \(seed)")
        }
    }
}
