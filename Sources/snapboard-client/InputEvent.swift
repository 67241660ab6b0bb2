/// What the user did, decoded from terminal input.
enum InputEvent: Equatable {
    case key(Character)
    /// An arrow key, with the modifiers xterm reports (`ESC [ 1 ; m A–D`).
    case arrow(dx: Int, dy: Int, modifiers: ArrowModifiers = [])
    /// SGR mouse: left button pressed, dragged or released at a 1-based cell.
    case press(column: Int, row: Int)
    case drag(column: Int, row: Int)
    case release(column: Int, row: Int)
    /// The mouse wheel: `up` away from the user, at a 1-based cell.
    case wheel(up: Bool, column: Int, row: Int)
    /// The Delete key (ESC [ 3 ~).
    case delete
    case interrupt
}

/// The modifiers held with an arrow key: xterm's parameter `m` is 1 plus these bits.
struct ArrowModifiers: OptionSet, Equatable {
    let rawValue: Int
    static let shift = ArrowModifiers(rawValue: 1)
    static let alt = ArrowModifiers(rawValue: 2)
    static let control = ArrowModifiers(rawValue: 4)
}
