/// Something an operation produced besides changed shapes.
public enum CanvasEvent: Hashable, Sendable {
    /// Goes to everyone on the canvas.
    case guide(Guide)
    /// Goes to everyone on the canvas.
    case gap(GapGuide)
    /// Goes only to the session whose operation caused it.
    case haptic(Haptic)

    /// The haptic, when the event is one.
    public var haptic: Haptic? { if case .haptic(let h) = self { h } else { nil } }
}
