/// The layout grid of seed 002: rows × columns of cells inside a frame, with `padding` as the outer
/// margin and as the gap between neighbouring cells (CSS `gap` semantics, so margins and gaps match).
public struct LayoutGrid: Hashable, Sendable, Codable {
    /// How the cells are sized; the seed's three cases.
    public enum Sizing: Hashable, Sendable, Codable {
        /// `rows × columns` rectangles that always fill the frame.
        case flexible(rows: Int, columns: Int)
        /// Square cells sized so `rows` fit the height; as many whole columns as fit the width.
        case squareFromRows(Int)
        /// Square cells sized so `columns` fit the width; as many whole rows as fit the height.
        case squareFromColumns(Int)
    }

    public let frame: Rect
    public let padding: Double
    public let sizing: Sizing
    public let rows: Int
    public let columns: Int
    /// The size of one cell (span 1 × 1).
    public let cellSize: Size

    /// Creates a layout, or returns nil when no whole cell fits or an input is not finite and positive.
    public init?(frame: Rect, padding: Double = 10, sizing: Sizing) {
        guard padding.isFinite, padding >= 0, frame.width.isFinite, frame.height.isFinite else { return nil }
        let content = frame.insetBy(dx: padding, dy: padding)
        func side(_ length: Double, _ count: Int) -> Double { (length - Double(count - 1) * padding) / Double(count) }
        func fit(_ length: Double, _ side: Double) -> Int { Int(((length + padding) / (side + padding)).rounded(.down)) }
        var rows: Int, columns: Int, cell: Size
        switch sizing {
        case .flexible(let r, let c):
            guard r >= 1, c >= 1 else { return nil }
            (rows, columns) = (r, c)
            cell = Size(width: side(content.width, c), height: side(content.height, r))
        case .squareFromRows(let r):
            guard r >= 1 else { return nil }
            let s = side(content.height, r)
            guard s > 0 else { return nil }
            (rows, columns, cell) = (r, fit(content.width, s), Size(width: s, height: s))
        case .squareFromColumns(let c):
            guard c >= 1 else { return nil }
            let s = side(content.width, c)
            guard s > 0 else { return nil }
            (rows, columns, cell) = (fit(content.height, s), c, Size(width: s, height: s))
        }
        guard rows >= 1, columns >= 1, rows <= 10_000, columns <= 10_000, cell.width > 0, cell.height > 0 else { return nil }
        self.frame = frame
        self.padding = padding
        self.sizing = sizing
        self.rows = rows
        self.columns = columns
        self.cellSize = cell
    }

    /// The frame of the cell at `row`, `column` spanning `rowSpan × columnSpan` cells (gaps inside the
    /// span included), or nil when any part of it falls outside the grid.
    public func cellRect(row: Int, column: Int, rowSpan: Int = 1, columnSpan: Int = 1) -> Rect? {
        guard row >= 0, column >= 0, rowSpan >= 1, columnSpan >= 1,
              row + rowSpan <= rows, column + columnSpan <= columns else { return nil }
        let x = frame.minX + padding + Double(column) * (cellSize.width + padding)
        let y = frame.minY + padding + Double(row) * (cellSize.height + padding)
        let w = Double(columnSpan) * cellSize.width + Double(columnSpan - 1) * padding
        let h = Double(rowSpan) * cellSize.height + Double(rowSpan - 1) * padding
        return Rect(x: x, y: y, width: w, height: h)
    }

    /// The cell whose pitch (the cell plus the gap after it) holds `point`, clamped into the grid.
    public func cell(at point: Point) -> (row: Int, column: Int) {
        func index(_ v: Double, _ origin: Double, _ pitch: Double, _ count: Int) -> Int {
            let t = (v - origin - padding) / pitch
            guard t >= 0 else { return 0 }
            guard t < Double(count - 1) else { return count - 1 }
            return Int(t.rounded(.down))
        }
        return (index(point.y, frame.minY, cellSize.height + padding, rows),
                index(point.x, frame.minX, cellSize.width + padding, columns))
    }

    /// The frame of the cell under `point`: where a shape centred there snaps to.
    public func snappedFrame(centeredAt point: Point) -> Rect {
        let (row, column) = cell(at: point)
        // Always inside the grid, because `cell(at:)` clamps.
        return cellRect(row: row, column: column)!
    }
}
