/// What a session may do on a canvas.
public enum AccessRole: String, Sendable, CaseIterable {
    /// Reads the canvas and sends ops.
    case editor
    /// Reads the canvas; its ops are refused with `forbidden`.
    case viewer

    /// The lesser of two roles: a client may ask for less than its token grants, never more.
    public func narrowed(to asked: AccessRole) -> AccessRole {
        self == .viewer || asked == .viewer ? .viewer : .editor
    }
}
