/// A tactile tick for the person whose gesture just engaged a snap (seed 003's `UIImpactFeedbackGenerator`).
public struct Haptic: Hashable, Sendable {
    public enum Reason: String, Hashable, Sendable, Codable {
        case edge
        case grid
        case angle
        /// An equal-spacing snap.
        case gap
        /// A connector's end bound to a shape's anchor (1.7, P28).
        case anchor
    }

    /// Always `light`, as in the seed; kept on the wire so richer styles can come later.
    public var style: String = "light"
    public var reason: Reason

    public init(reason: Reason) { self.reason = reason }
}
