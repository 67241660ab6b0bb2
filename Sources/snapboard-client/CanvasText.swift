import SnapboardClient
import SnapboardCore

/// A replica rasterised to terminal cells: `+` grid intersections, shapes by the first letter of their
/// kind (upper case while a lease is held or the shape is selected) in their fill colour, in z-order,
/// and guides as `|` and `-`. The dump prints it plain; the interactive view in colour.
enum CanvasText {
    struct Cell {
        var character: Character = " "
        /// 0xRRGGBB, or nil for the default colour.
        var colour: UInt32?
    }

    static func raster(_ replica: CanvasReplica, columns: Int, rows: Int, selected: ShapeID? = nil) -> [[Cell]] {
        var cells = Array(repeating: Array(repeating: Cell(), count: columns), count: rows)
        guard replica.width > 0, replica.height > 0, columns > 0, rows > 0 else { return cells }
        let sx = replica.width / Double(columns), sy = replica.height / Double(rows)
        func cell(_ x: Double, _ y: Double) -> (Int, Int) { (max(0, min(Int(y / sy), rows - 1)), max(0, min(Int(x / sx), columns - 1))) }
        if let grid = replica.grid {
            for x in grid.x.lines.dropFirst().dropLast() {
                for y in grid.y.lines.dropFirst().dropLast() {
                    let (r, c) = cell(x, y)
                    cells[r][c] = Cell(character: "+", colour: 0x5A5A5A)
                }
            }
        }
        for shape in replica.drawingOrder {
            var mark = shape.kind.name.first ?? "?"
            if replica.leases[shape.id] != nil || shape.id == selected { mark = Character(mark.uppercased()) }
            let paint = Cell(character: mark, colour: rgb(shape.fill))
            let b = shape.bounds
            let (r0, c0) = cell(b.minX, b.minY), (r1, c1) = cell(b.maxX, b.maxY)
            var drew = false
            for r in r0...r1 {
                for c in c0...c1 where shape.contains(Point(x: (Double(c) + 0.5) * sx, y: (Double(r) + 0.5) * sy)) {
                    cells[r][c] = paint
                    drew = true
                }
            }
            // A shape smaller than a cell still shows, at its centre.
            if !drew {
                let (r, c) = cell(shape.center.x, shape.center.y)
                cells[r][c] = paint
            }
        }
        for guide in replica.guides {
            for t in stride(from: guide.from, through: guide.to, by: guide.axis == .x ? sy : sx) {
                let (r, c) = guide.axis == .x ? cell(guide.at, t) : cell(t, guide.at)
                cells[r][c] = Cell(character: guide.axis == .x ? "|" : "-", colour: 0xFFD700)
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

    /// An HSB fill as 0xRRGGBB.
    static func rgb(_ fill: HSBColor) -> UInt32 {
        let h = fill.h * 6, s = fill.s, v = fill.b
        let i = Int(h) % 6, f = h - Double(Int(h))
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        let (r, g, b): (Double, Double, Double) = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]
        return UInt32(r * 255) << 16 | UInt32(g * 255) << 8 | UInt32(b * 255)
    }
}
