/// Draws frames of cells to the terminal, sending only the cells that changed since the last frame
/// (a drag changes a handful of cells, not the whole screen: what matters over SSH).
struct ScreenWriter {
    private var previous: [[CanvasText.Cell]] = []
    private var previousStatus = ""

    /// Forgets what is on screen: the next frame is drawn whole (after a resize).
    mutating func invalidate() {
        previous = []
        previousStatus = ""
    }

    /// The escape codes that turn the last frame into `cells` with `status` (already styled) on `statusRow`.
    mutating func update(_ cells: [[CanvasText.Cell]], status: String, statusRow: Int) -> String {
        var out = ""
        let whole = previous.count != cells.count || previous.first?.count != cells.first?.count
        if whole { out += "\u{1B}[0m\u{1B}[2J" }
        var pen: (colour: UInt32?, background: UInt32?, inverse: Bool)? = nil
        for (r, row) in cells.enumerated() {
            var cursorAt: Int?
            for (c, cell) in row.enumerated() where whole || previous[r][c] != cell {
                if cursorAt != c { out += "\u{1B}[\(r + 1);\(c + 1)H" }
                if pen == nil || pen!.colour != cell.colour || pen!.background != cell.background || pen!.inverse != cell.inverse {
                    out += "\u{1B}[0m" + (cell.inverse ? "\u{1B}[7m" : "")
                    if let k = cell.colour { out += "\u{1B}[38;2;\((k >> 16) & 255);\((k >> 8) & 255);\(k & 255)m" }
                    if let k = cell.background { out += "\u{1B}[48;2;\((k >> 16) & 255);\((k >> 8) & 255);\(k & 255)m" }
                    pen = (cell.colour, cell.background, cell.inverse)
                }
                out.append(cell.character)
                cursorAt = c + 1
            }
        }
        if pen != nil { out += "\u{1B}[0m" }
        if whole || status != previousStatus { out += "\u{1B}[\(statusRow);1H" + status + "\u{1B}[0m" }
        previous = cells
        previousStatus = status
        return out
    }
}
