/// What a `CanvasSession` needs from a WebSocket: the Linux build plugs in libwebsockets
/// (`SnapboardLWSClient`), an Apple app can plug in `URLSessionWebSocketTask`.
public protocol CanvasTransport: AnyObject {
    /// Sends one text message.
    func send(_ text: String)
    /// The next event, waiting up to `timeout` seconds; nil when nothing happened.
    func receive(timeout: Double) -> TransportEvent?
    /// Closes the connection normally.
    func disconnect()
}
