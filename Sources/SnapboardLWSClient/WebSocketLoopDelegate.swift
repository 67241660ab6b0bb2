/// What a `WebSocketLoop` reports. Every method is called on the loop's service thread, which is also
/// the only thread that may call the loop's `connect`, `send`, `close` and `schedule`.
public protocol WebSocketLoopDelegate: AnyObject {
    /// The upgrade of `connection` completed.
    func opened(_ connection: WebSocketConnection)
    /// A whole message arrived on `connection` (all fragments joined).
    func received(_ connection: WebSocketConnection, _ message: [UInt8], binary: Bool)
    /// A whole message that arrived in one piece, lent for the length of the call: the bytes belong to
    /// libwebsockets and are gone when it returns. The default copies them and calls `received`; a
    /// delegate that reads most messages without keeping them (the load tool) saves an allocation a frame.
    func received(_ connection: WebSocketConnection, lent message: UnsafeRawBufferPointer, binary: Bool)
    /// `connection` closed; `code` is the peer's close code when it sent one.
    func closed(_ connection: WebSocketConnection, code: UInt16?, reason: String)
    /// `connection` could not be made: refused, or the upgrade was answered with an HTTP error.
    func failed(_ connection: WebSocketConnection, _ why: String)
    /// The timer set with `schedule(after:)` fired.
    func timerFired()
}

extension WebSocketLoopDelegate {
    public func received(_ connection: WebSocketConnection, lent message: UnsafeRawBufferPointer, binary: Bool) {
        received(connection, Array(message), binary: binary)
    }
}
