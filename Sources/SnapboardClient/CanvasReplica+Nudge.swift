import SnapboardCore

/// Keyboard nudges: the arrow keys move the selection by whole grid steps.
extension CanvasReplica {
    /// One grid step along each axis: the spacing of the canvas's gridlines (the pitch, or the length over
    /// the divisions); 1 before the welcome has said what the grid is.
    public var gridStep: (x: Double, y: Double) {
        guard let grid else { return (1, 1) }
        return (grid.x.position(1), grid.y.position(1))
    }

    /// The one-shot move that nudges `shape` by `steps` grid steps in the direction (`dx`, `dy`), each -1, 0
    /// or 1: along an axis whose direction is 0 the shape does not move at all. With `snap` false (the
    /// default) the server moves it by exactly that much (P13); true lets a nudge that lands within snapping
    /// reach of an edge, a gap or a gridline snap there.
    public func nudge(_ shape: ShapeID, dx: Int, dy: Int, steps: Int = 1, snap: Bool = false) -> CanvasOp {
        let step = gridStep
        return .move(shape, phase: nil, translation: Point(x: Double(dx * steps) * step.x, y: Double(dy * steps) * step.y), snap: snap)
    }
}
