/// Where a `CanvasSession`'s connection stands.
public enum SessionState: String, Sendable {
    /// Before the first connection.
    case connecting
    case connected
    /// The connection dropped; the next attempt waits for the backoff.
    case reconnecting
}
