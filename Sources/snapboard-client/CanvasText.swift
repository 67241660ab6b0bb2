import SnapboardClient
import SnapboardCore

/// A replica rasterised to terminal cells: the layout's cells outlined in `.`, `+` grid intersections, guides as `|` and `-` beneath the
/// shapes, and shapes by the first letter of their kind in their fill colour, in z-order: upper case
/// while someone else holds the shape's gesture lease, reverse video for your own selection. The dump
/// prints it plain; the interactive view in colour.
enum CanvasText {
    struct Cell: Equatable {
        var character: Character = " "
        /// 0xRRGGBB, or nil for the default colour.
        var colour: UInt32?
        /// Drawn in reverse video: your selection, and the help overlay.
        var inverse = false
    }

    /// The part of the canvas a view shows: `origin` at the top-left cell, `size` across the cells.
    struct Viewport: Equatable {
        var origin: Point
        var width: Double
        var height: Double

        static func whole(_ replica: CanvasReplica) -> Viewport { Viewport(origin: Point(x: 0, y: 0), width: replica.width, height: replica.height) }
    }

    static func raster(_ replica: CanvasReplica, columns: Int, rows: Int, view: Viewport? = nil, selected: ShapeID? = nil) -> [[Cell]] {
        var cells = Array(repeating: Array(repeating: Cell(), count: columns), count: rows)
        let view = view ?? .whole(replica)
        guard view.width > 0, view.height > 0, columns > 0, rows > 0 else { return cells }
        let sx = view.width / Double(columns), sy = view.height / Double(rows)
        /// The cell a canvas point falls in, unclamped.
        func cell(_ x: Double, _ y: Double) -> (row: Int, column: Int) {
            (Int(((y - view.origin.y) / sy).rounded(.down)), Int(((x - view.origin.x) / sx).rounded(.down)))
        }
        func paint(_ r: Int, _ c: Int, _ value: Cell) {
            if r >= 0, r < rows, c >= 0, c < columns { cells[r][c] = value }
        }
        // A layout finer than the terminal would be a blur of dots: it is drawn only while cells stay visible.
        if let layout = replica.layout, layout.rows * layout.columns <= rows * columns / 4 {
            // Each cell's outline, beneath everything else: shapes fit to cells sit inside them.
            let mark = Cell(character: ".", colour: 0x3A6EA5)
            for row in 0..<layout.rows {
                for column in 0..<layout.columns {
                    guard let rect = layout.cellRect(row: row, column: column) else { continue }
                    let (top, left) = cell(rect.minX, rect.minY), (bottom, right) = cell(rect.maxX, rect.maxY)
                    guard top <= bottom, left <= right else { continue }
                    for c in left...right {
                        paint(top, c, mark)
                        paint(bottom, c, mark)
                    }
                    for r in top...bottom {
                        paint(r, left, mark)
                        paint(r, right, mark)
                    }
                }
            }
        }
        if let grid = replica.grid {
            for x in grid.x.lines.dropFirst().dropLast() {
                for y in grid.y.lines.dropFirst().dropLast() {
                    let (r, c) = cell(x, y)
                    paint(r, c, Cell(character: "+", colour: 0x5A5A5A))
                }
            }
        }
        // Guides first, so shapes stay readable on top. Walk cells, not canvas steps: a step of one cell
        // width in canvas units can land twice in one cell and skip the next through rounding.
        for guide in replica.guides {
            let mark = Cell(character: guide.axis == .x ? "|" : "-", colour: 0xFFD700)
            if guide.axis == .x {
                let column = cell(guide.at, 0).column
                for r in max(0, cell(0, guide.from).row)...max(0, min(rows - 1, cell(0, guide.to).row)) { paint(r, column, mark) }
            } else {
                let row = cell(0, guide.at).row
                for c in max(0, cell(guide.from, 0).column)...max(0, min(columns - 1, cell(guide.to, 0).column)) { paint(row, c, mark) }
            }
        }
        // Equal gaps: each gap as a run of '=' (across x) or '‖' (across y), also beneath shapes.
        for gap in replica.gaps {
            let mark = Cell(character: gap.axis == .x ? "=" : "‖", colour: 0xFF69B4)
            for s in gap.segments {
                if gap.axis == .x {
                    let row = cell(0, s.at).row
                    let first = max(0, cell(s.from, 0).column), last = min(columns - 1, cell(s.to, 0).column)
                    if row >= 0, row < rows, first <= last { for c in first...last { paint(row, c, mark) } }
                } else {
                    let column = cell(s.at, 0).column
                    let first = max(0, cell(0, s.from).row), last = min(rows - 1, cell(0, s.to).row)
                    if column >= 0, column < columns, first <= last { for r in first...last { paint(r, column, mark) } }
                }
            }
        }
        let me = replica.session
        for shape in replica.drawingOrder {
            var mark = shape.kind.name.first ?? "?"
            if let holder = replica.leases[shape.id], holder != me { mark = Character(mark.uppercased()) }
            let value = Cell(character: mark, colour: shape.fill.rgb, inverse: shape.id == selected)
            let b = shape.bounds
            let (r0, c0) = cell(b.minX, b.minY), (r1, c1) = cell(b.maxX, b.maxY)
            var drew = false
            for r in max(0, r0)...max(0, min(r1, rows - 1)) {
                for c in max(0, c0)...max(0, min(c1, columns - 1)) where shape.contains(
                    Point(x: view.origin.x + (Double(c) + 0.5) * sx, y: view.origin.y + (Double(r) + 0.5) * sy)) {
                    paint(r, c, value)
                    drew = true
                }
            }
            // A shape smaller than a cell still shows, at its centre.
            if !drew {
                let (r, c) = cell(shape.center.x, shape.center.y)
                paint(r, c, value)
            }
        }
        return cells
    }

    /// The plain-text picture `--dump` prints.
    static func render(_ replica: CanvasReplica, columns: Int, rows: Int) -> String {
        guard replica.width > 0 else { return "(no canvas)" }
        let border = "." + String(repeating: "-", count: columns) + "."
        let header = "canvas \(replica.canvas ?? "?") seq \(replica.seq): \(replica.shapes.count) shapes, \(replica.sessions.count) sessions"
        let lines = raster(replica, columns: columns, rows: rows).map { "|" + String($0.map(\.character)) + "|" }
        return ([header, border] + lines + [border]).joined(separator: "\n")
    }
}
