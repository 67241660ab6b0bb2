import SnapboardClient
import SnapboardCore

/// A replica rasterised to terminal cells: the layout's cells outlined in `.`, `+` grid intersections, guides as `|` and `-` beneath the
/// shapes, and shapes by the first letter of their kind in their fill colour, in z-order: upper case
/// while someone else holds the shape's lease, reverse video for your own selection. A shape's text is written
/// inside its cell box (centred, or from the top-left on a `text` shape, which draws nothing else); a note is a
/// block of its fill; connectors are lines of `─ │ ╱ ╲` with an arrow's head at its `to` end (1.7). The dump
/// prints it plain; the interactive view in colour.
enum CanvasText {
    struct Cell: Equatable {
        var character: Character = " "
        /// 0xRRGGBB, or nil for the default colour.
        var colour: UInt32?
        /// Drawn in reverse video: your selection, and the help overlay.
        var inverse = false
        /// 0xRRGGBB behind the character, or nil for the default background: a note's fill.
        var background: UInt32?
    }

    /// The part of the canvas a view shows: `origin` at the top-left cell, `size` across the cells.
    struct Viewport: Equatable {
        var origin: Point
        var width: Double
        var height: Double

        static func whole(_ replica: CanvasReplica) -> Viewport { Viewport(origin: Point(x: 0, y: 0), width: replica.width, height: replica.height) }
    }

    /// The canvas as `rows` of `columns` cells. `drafts` are texts shown in place of what is committed: the
    /// one being edited, as it is typed.
    static func raster(_ replica: CanvasReplica, columns: Int, rows: Int, view: Viewport? = nil, selected: ShapeID? = nil,
                       drafts: [ShapeID: String] = [:]) -> [[Cell]] {
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
        for var shape in replica.drawingOrder {
            if let draft = drafts[shape.id] { shape.text = draft }
            if shape.kind.isConnector {
                drawConnector(shape, in: replica, selected: shape.id == selected, cell: cell, paint: paint)
                continue
            }
            var mark = shape.kind.name.first ?? "?"
            if let holder = replica.leases[shape.id], holder != me { mark = Character(mark.uppercased()) }
            let isSelected = shape.id == selected
            var value = Cell(character: mark, colour: shape.fill.rgb, inverse: isSelected)
            if shape.kind == .note {
                // A note is a block of its fill: the letter a shade darker, so a lease's capital and the selection still show.
                value.colour = shade(shape.fill.rgb)
                value.background = shape.fill.rgb
            }
            let b = shape.bounds
            let (r0, c0) = cell(b.minX, b.minY), (r1, c1) = cell(b.maxX, b.maxY)
            // A text shape draws only its text; an empty one still shows its letter at its centre, so it can be found.
            let filled = !(shape.kind == .text && !shape.text.isEmpty)
            var drew = false
            if filled {
                for r in max(0, r0)...max(0, min(r1, rows - 1)) {
                    for c in max(0, c0)...max(0, min(c1, columns - 1)) where shape.contains(
                        Point(x: view.origin.x + (Double(c) + 0.5) * sx, y: view.origin.y + (Double(r) + 0.5) * sy)) {
                        paint(r, c, value)
                        drew = true
                    }
                }
            }
            // A shape smaller than a cell still shows, at its centre.
            if filled, !drew {
                let (r, c) = cell(shape.center.x, shape.center.y)
                paint(r, c, value)
            }
            guard !shape.text.isEmpty else { continue }
            var pen = Cell(colour: shape.style.stroke ?? (shape.kind == .note ? 0x1E1E1E : nil), inverse: isSelected)
            if shape.kind == .note { pen.background = shape.fill.rgb }
            let box = Box(top: r0, left: c0, bottom: r1, right: c1)
            for (r, c, ch) in label(shape.text, in: box, centred: shape.kind != .text) {
                pen.character = ch
                paint(r, c, pen)
            }
        }
        return cells
    }

    /// A shape's cell box, inclusive: the cells its bounds touch.
    struct Box: Equatable {
        var top: Int, left: Int, bottom: Int, right: Int
        var width: Int { right - left + 1 }
        var height: Int { bottom - top + 1 }
    }

    /// Where the characters of `text` go inside `box`: broken at line feeds, wrapped between words at the box's
    /// width (a longer word is cut), lines past the box's height left out; centred both ways, or from the
    /// top-left corner (a `text` shape, as P26 lays it out). Spaces are placed too, so a label reads whole.
    static func label(_ text: String, in box: Box, centred: Bool) -> [(row: Int, column: Int, character: Character)] {
        guard box.width > 0, box.height > 0 else { return [] }
        let lines = Array(wrap(text, width: box.width).prefix(box.height))
        let top = centred ? box.top + (box.height - lines.count) / 2 : box.top
        var out: [(Int, Int, Character)] = []
        for (i, line) in lines.enumerated() {
            let left = centred ? box.left + (box.width - line.count) / 2 : box.left
            for (j, ch) in line.enumerated() { out.append((top + i, left + j, ch)) }
        }
        return out
    }

    /// `text` as lines at most `width` characters long: broken at line feeds, then between words; tabs read as spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.replacingOccurrences(of: "\t", with: " ").split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                var word = Substring(word)
                if !line.isEmpty, line.count + 1 + word.count <= width {
                    line += " " + word
                    continue
                }
                if !line.isEmpty { lines.append(line) }
                while word.count > width {
                    lines.append(String(word.prefix(width)))
                    word = word.dropFirst(width)
                }
                line = String(word)
            }
            lines.append(line)
        }
        return lines
    }

    /// A connector as a line of cells from end to end in its stroke colour (the terminal's own colour without
    /// one): `─`, `│`, `╱` or `╲` by its slope on screen, an arrow's head (`>`, `<`, `^`, `v`) at its `to` end.
    /// Where an end is bound the line stops at the edge of the shape it is bound to, so the head touches it.
    private static func drawConnector(_ shape: Shape, in replica: CanvasReplica, selected: Bool,
                                      cell: (Double, Double) -> (row: Int, column: Int), paint: (Int, Int, Cell) -> Void) {
        let ends = shape.endpoints
        let a = cell(ends.from.x, ends.from.y), b = cell(ends.to.x, ends.to.y)
        let path = line(from: a, to: b)
        // Trim the cells inside the shapes the ends are bound to, from each end only: the line may cross others.
        func inside(_ binding: Binding?) -> ((row: Int, column: Int)) -> Bool {
            guard let id = binding?.shape, let target = replica.shapes[id] else { return { _ in false } }
            let box = target.bounds
            let (top, left) = cell(box.minX, box.minY), (bottom, right) = cell(box.maxX, box.maxY)
            return { p in (top...bottom).contains(p.row) && (left...right).contains(p.column) }
        }
        let inFrom = inside(shape.from), inTo = inside(shape.to)
        var trimmed = ArraySlice(path)
        while let first = trimmed.first, inFrom(first) { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, inTo(last) { trimmed = trimmed.dropLast() }
        if trimmed.isEmpty { trimmed = ArraySlice([b]) }
        let dr = b.row - a.row, dc = b.column - a.column
        let colour = shape.style.stroke
        let stroke = Cell(character: strokeCharacter(dr: dr, dc: dc), colour: colour, inverse: selected)
        for p in trimmed { paint(p.row, p.column, stroke) }
        if shape.kind == .arrow, let head = trimmed.last {
            paint(head.row, head.column, Cell(character: headCharacter(dr: dr, dc: dc), colour: colour, inverse: selected))
        }
        guard !shape.text.isEmpty else { return }
        // The label on the middle, one line, as long as the line is wide (at least its own length on a steep one).
        let middle = cell(shape.center.x, shape.center.y)
        let text = Array(shape.text.replacingOccurrences(of: "\n", with: " "))
        let span = max(abs(dc) - 1, min(text.count, 12))
        let shown = text.prefix(max(1, span))
        let left = middle.column - shown.count / 2
        for (j, ch) in shown.enumerated() { paint(middle.row, left + j, Cell(character: ch, colour: colour, inverse: selected)) }
    }

    /// The cells of a straight line from `a` to `b`, both included (Bresenham).
    static func line(from a: (row: Int, column: Int), to b: (row: Int, column: Int)) -> [(row: Int, column: Int)] {
        let dc = abs(b.column - a.column), dr = -abs(b.row - a.row)
        let sc = a.column < b.column ? 1 : -1, sr = a.row < b.row ? 1 : -1
        var error = dc + dr, (r, c) = a
        var out: [(row: Int, column: Int)] = []
        // A connector zoomed far past the screen is still walked cell by cell: cap it well past any terminal.
        while out.count < 20_000 {
            out.append((r, c))
            if r == b.row, c == b.column { break }
            let e2 = 2 * error
            if e2 >= dr { error += dr; c += sc }
            if e2 <= dc { error += dc; r += sr }
        }
        return out
    }

    /// The character that draws a line going `dc` columns across and `dr` rows down.
    static func strokeCharacter(dr: Int, dc: Int) -> Character {
        let across = Double(abs(dc)), down = Double(abs(dr))
        if down <= across * 0.5 { return "─" }
        if across <= down * 0.5 { return "│" }
        return (dr > 0) == (dc > 0) ? "╲" : "╱"
    }

    /// An arrow's head pointing along `dc` columns across and `dr` rows down.
    static func headCharacter(dr: Int, dc: Int) -> Character {
        if dr == 0, dc == 0 { return ">" }
        if abs(dc) >= abs(dr) { return dc > 0 ? ">" : "<" }
        return dr > 0 ? "v" : "^"
    }

    /// `rgb` a quarter darker.
    static func shade(_ rgb: UInt32) -> UInt32 {
        let r = (rgb >> 16) & 255, g = (rgb >> 8) & 255, b = rgb & 255
        return (r * 3 / 4) << 16 | (g * 3 / 4) << 8 | (b * 3 / 4)
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
