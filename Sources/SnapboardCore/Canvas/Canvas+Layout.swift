/// Layout canvases (seed 002): each shape fills one cell, one shape to a cell.
extension Canvas {
    /// The frame of the cell a shape centred at `point` goes to: the cell under it when no other shape holds
    /// it, else the nearest free cell (`LayoutGrid.nearestFreeCell`); nil when every cell is taken.
    ///
    /// A cell is taken by the shapes whose committed centre lies in it (`LayoutGrid.cell(at:)`), so a shape
    /// being dragged holds the cell it was picked up from until its drop commits. `moving` is left out:
    /// a shape dropped back where it was finds its own cell free.
    func freeCell(_ layout: LayoutGrid, near point: Point, moving: Int32? = nil) -> Rect? {
        var cells = LayoutCells(layout, of: self, moving: moving.map { [$0] } ?? [])
        return cells.take(near: point)
    }

    /// The size a shape of `kind`, `size` before fitting, takes in a cell of `cell`: scaled uniformly to fit
    /// inside the cell, so it keeps its aspect ratio, or stretched to fill it when the layout says `fill`.
    /// Dots stay round. Each side stays within `limits`.
    func fitted(_ kind: ShapeKind, _ size: Size, to cell: Size, limits: ClosedRange<Double>) -> Size {
        func clamp(_ v: Double) -> Double { min(max(v, limits.lowerBound), limits.upperBound) }
        if kind == .dot {
            let d = clamp(min(cell.width, cell.height))
            return Size(width: d, height: d)
        }
        if config.layoutFill { return Size(width: clamp(cell.width), height: clamp(cell.height)) }
        let f = min(cell.width / size.width, cell.height / size.height)
        return Size(width: clamp(size.width * f), height: clamp(size.height * f))
    }
}

/// The cells of a layout and which are taken, found once, so that a run of shapes (a duplicate's copies)
/// can each take the free cell nearest its point.
struct LayoutCells {
    let layout: LayoutGrid
    var occupied: Set<Int>

    /// The cells `canvas`'s shapes take, each by its committed centre, leaving out the shapes in slots `moving`.
    init(_ layout: LayoutGrid, of canvas: Canvas, moving: Set<Int32> = []) {
        self.layout = layout
        occupied = []
        occupied.reserveCapacity(canvas.store.count)
        for (i, slot) in canvas.store.slots.enumerated() where !slot.isFree && !moving.contains(Int32(i)) {
            let shape = canvas.gestures[Int32(i)]?.committed ?? slot.shape
            let cell = layout.cell(at: shape.center)
            occupied.insert(layout.key(row: cell.row, column: cell.column))
        }
    }

    /// The frame of the cell under `point` when it is free, else of the nearest free cell, which is then
    /// taken; nil when every cell is.
    mutating func take(near point: Point) -> Rect? {
        let wanted = layout.cell(at: point)
        guard let cell = layout.nearestFreeCell(toRow: wanted.row, column: wanted.column, occupied: occupied) else { return nil }
        occupied.insert(layout.key(row: cell.row, column: cell.column))
        return layout.cellRect(row: cell.row, column: cell.column)
    }
}
