import SnapboardClient

/// libwebsockets as the transport of a `CanvasSession`.
extension WebSocketClient: CanvasTransport {
    /// Connects to `url` and returns the client, ready for a `CanvasSession`; a `wss://` server is
    /// verified against `caFile`, or the system's trust store.
    public static func transport(url: String, caFile: String? = nil, timeout: Double = 5) throws -> CanvasTransport {
        let client = try WebSocketClient(url: url, caFile: caFile)
        try client.connect(timeout: timeout)
        return client
    }

    public func receive(timeout: Double) -> TransportEvent? {
        switch next(timeout: timeout) {
        case .message(let bytes, _)?: .message(bytes)
        case .closed?, .failed?: .closed
        case .open?, nil: nil
        }
    }

    public func disconnect() { close() }
}
