import Testing

@testable import SnapboardCore

@Suite("Layout grid (seed 002)")
struct LayoutGridTests {
    let frame = Rect(x: 0, y: 0, width: 640, height: 970)

    @Test("Flexible cells fill the frame with equal margins and gaps")
    func flexible() throws {
        let grid = try #require(LayoutGrid(frame: frame, padding: 10, sizing: .flexible(rows: 9, columns: 6)))
        #expect(grid.cellSize == Size(width: (620 - 50) / 6.0, height: (950 - 80) / 9.0))
        let first = try #require(grid.cellRect(row: 0, column: 0))
        let last = try #require(grid.cellRect(row: 8, column: 5))
        #expect(first.minX == 10 && first.minY == 10)
        #expect(abs(last.maxX - 630) < 1e-9 && abs(last.maxY - 960) < 1e-9)
        let next = try #require(grid.cellRect(row: 0, column: 1))
        #expect(abs(next.minX - first.maxX - 10) < 1e-9)
    }

    @Test("A span covers its cells and the gaps between them, like Tkinter's rowspan and columnspan")
    func spans() throws {
        let grid = try #require(LayoutGrid(frame: frame, padding: 10, sizing: .flexible(rows: 9, columns: 6)))
        let span = try #require(grid.cellRect(row: 1, column: 2, rowSpan: 1, columnSpan: 2))
        let a = try #require(grid.cellRect(row: 1, column: 2)), b = try #require(grid.cellRect(row: 1, column: 3))
        #expect(span.minX == a.minX && abs(span.maxX - b.maxX) < 1e-9 && span.height == a.height)
        #expect(grid.cellRect(row: 8, column: 5, rowSpan: 2) == nil)
        #expect(grid.cellRect(row: -1, column: 0) == nil)
        #expect(grid.cellRect(row: 0, column: 0, columnSpan: 0) == nil)
    }

    @Test("Square cells sized from the row count crop the partial column")
    func squareFromRows() throws {
        let grid = try #require(LayoutGrid(frame: frame, padding: 10, sizing: .squareFromRows(9)))
        let side = (950 - 80) / 9.0
        #expect(grid.cellSize == Size(width: side, height: side))
        #expect(grid.columns == Int((620 + 10) / (side + 10)))
        #expect(try #require(grid.cellRect(row: 0, column: grid.columns - 1)).maxX <= 630)
    }

    @Test("Square cells sized from the column count crop the partial row")
    func squareFromColumns() throws {
        let grid = try #require(LayoutGrid(frame: frame, padding: 10, sizing: .squareFromColumns(6)))
        let side = (620 - 50) / 6.0
        #expect(grid.cellSize == Size(width: side, height: side))
        #expect(grid.rows == Int((950 + 10) / (side + 10)))
        #expect(try #require(grid.cellRect(row: grid.rows - 1, column: 0)).maxY <= 960)
    }

    @Test("A frame snaps to the cell under its centre, clamped into the grid")
    func snappedFrame() throws {
        let grid = try #require(LayoutGrid(frame: frame, padding: 10, sizing: .flexible(rows: 9, columns: 6)))
        let cell = try #require(grid.cellRect(row: 2, column: 3))
        #expect(grid.snappedFrame(centeredAt: cell.center) == cell)
        #expect(grid.snappedFrame(centeredAt: Point(x: cell.maxX + 5, y: cell.midY)) == cell)  // in the gap after it
        #expect(grid.snappedFrame(centeredAt: Point(x: -100, y: 5000)) == grid.cellRect(row: 8, column: 0))
    }

    @Test("Layouts with no whole cell are refused")
    func invalid() {
        #expect(LayoutGrid(frame: frame, padding: 400, sizing: .squareFromRows(3)) == nil)
        #expect(LayoutGrid(frame: frame, padding: 10, sizing: .flexible(rows: 0, columns: 3)) == nil)
        #expect(LayoutGrid(frame: frame, padding: .nan, sizing: .flexible(rows: 1, columns: 3)) == nil)
    }
}
