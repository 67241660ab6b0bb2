/// What the user did, decoded from terminal input.
enum InputEvent: Equatable {
    case key(Character)
    case arrow(dx: Int, dy: Int)
    /// SGR mouse: left button pressed, dragged or released at a 1-based cell.
    case press(column: Int, row: Int)
    case drag(column: Int, row: Int)
    case release(column: Int, row: Int)
    /// The mouse wheel: `up` away from the user, at a 1-based cell.
    case wheel(up: Bool, column: Int, row: Int)
    /// Shift and an arrow key: pan the view.
    case pan(dx: Int, dy: Int)
    /// The Delete key (ESC [ 3 ~).
    case delete
    case interrupt
}
