/// Finding a free cell: where a shape goes when the cell it was tapped or dropped in is taken.
extension LayoutGrid {
    /// A cell's key in a set of cells: `row × columns + column`.
    public func key(row: Int, column: Int) -> Int { row * columns + column }

    /// The free cell nearest to (`row`, `column`), that cell itself when it is free, or nil when every cell
    /// is in `occupied` (keys as `key(row:column:)`).
    ///
    /// Nearest means the shortest distance between the two cells' centres; a tie goes to the smaller row,
    /// then to the smaller column. The rows are visited outwards from `row`, and each row is searched
    /// outwards from `column`, so the cost grows with the occupied cells passed over, not with the grid.
    public func nearestFreeCell(toRow row: Int, column: Int, occupied: Set<Int>) -> (row: Int, column: Int)? {
        guard occupied.count < rows * columns else { return nil }
        let pitchX = cellSize.width + padding, pitchY = cellSize.height + padding
        var best: (distance: Double, row: Int, column: Int)?
        var step = 0
        while true {
            let dy = Double(step) * pitchY
            if let best, dy * dy > best.distance { break }
            let candidates = step == 0 ? [row] : [row - step, row + step]
            let inside = candidates.filter { $0 >= 0 && $0 < rows }
            if inside.isEmpty { break }
            for r in inside {
                guard let c = nearestFreeColumn(inRow: r, to: column, occupied: occupied) else { continue }
                let dx = Double(c - column) * pitchX
                let distance = dx * dx + dy * dy
                if best.map({ (distance, r, c) < ($0.distance, $0.row, $0.column) }) ?? true { best = (distance, r, c) }
            }
            step += 1
        }
        return best.map { ($0.row, $0.column) }
    }

    /// The free column in `row` nearest to `column`, the smaller one on a tie; nil when the row is full.
    private func nearestFreeColumn(inRow row: Int, to column: Int, occupied: Set<Int>) -> Int? {
        var offset = 0
        while column - offset >= 0 || column + offset < columns {
            for c in [column - offset, column + offset] where c >= 0 && c < columns && !occupied.contains(key(row: row, column: c)) {
                return c
            }
            offset += 1
        }
        return nil
    }
}
