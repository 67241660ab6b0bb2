/// What happened on a transport.
public enum TransportEvent: Sendable {
    case message([UInt8])
    /// The connection is gone (closed by either side, or failed).
    case closed
}
