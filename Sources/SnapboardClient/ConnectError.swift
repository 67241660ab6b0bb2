/// Why `CanvasSession.connect` gave up.
public enum ConnectError: Error {
    /// The next attempt is not due before the deadline (the backoff is still running).
    case backingOff
}
