/// What the canvas listing says of a loaded canvas.
struct LoadedFigures: Sendable {
    var seq: Int
    var shapes: Int
}
