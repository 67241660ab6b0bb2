/// Something an operation produced besides changed shapes.
public enum CanvasEvent: Hashable, Sendable {
    /// Goes to everyone on the canvas.
    case guide(Guide)
    /// Goes to everyone on the canvas.
    case gap(GapGuide)
    /// Goes only to the session whose operation caused it.
    case haptic(Haptic)
}
