/// A uniform grid of cells over the canvas, each listing the shapes whose indexed bounds overlap it, slot
/// and bounds together (a query reads them in one pass over a small array instead of reaching into the
/// store's slots at random): the spatial index behind gap snapping's "nearest shape to the left in this row".
///
/// Cells are square, at least 64 units and at most 256 to a side of the canvas, so a query walks a
/// bounded number of them; shapes past the canvas's edges are filed in its edge cells.
struct CellIndex: Sendable {
    let size: Double
    let columns: Int
    let rows: Int
    struct Entry: Sendable {
        var slot: Int32
        var bounds: Rect
    }

    private(set) var cells: [[Entry]]

    init(width: Double, height: Double) {
        size = max(64, max(width, height) / 256)
        columns = max(1, Int((width / size).rounded(.up)))
        rows = max(1, Int((height / size).rounded(.up)))
        cells = Array(repeating: [], count: columns * rows)
    }

    /// The column holding `x` (along `.x`) or the row holding it (along `.y`), clamped to the grid.
    func cell(_ v: Double, _ axis: Axis) -> Int {
        let last = axis == .x ? columns - 1 : rows - 1
        guard v > 0 else { return 0 }
        return v >= Double(last) * size ? last : Int(v / size)
    }

    /// The shapes filed in column `c`, row `r`.
    func entries(column c: Int, row r: Int) -> [Entry] { cells[r * columns + c] }

    mutating func insert(_ bounds: Rect, _ slot: Int32) {
        for r in cell(bounds.minY, .y)...cell(bounds.maxY, .y) {
            for c in cell(bounds.minX, .x)...cell(bounds.maxX, .x) { cells[r * columns + c].append(Entry(slot: slot, bounds: bounds)) }
        }
    }

    mutating func remove(_ bounds: Rect, _ slot: Int32) {
        for r in cell(bounds.minY, .y)...cell(bounds.maxY, .y) {
            for c in cell(bounds.minX, .x)...cell(bounds.maxX, .x) {
                let k = r * columns + c
                if let i = cells[k].firstIndex(where: { $0.slot == slot }) {
                    cells[k].swapAt(i, cells[k].count - 1)
                    cells[k].removeLast()
                }
            }
        }
    }
}
