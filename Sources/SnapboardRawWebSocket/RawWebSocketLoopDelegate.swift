/// What a `RawWebSocketLoop` reports. Every method is called on the loop's thread, which is also the only
/// thread that may call the loop's `connect`, `send`, `close` and `schedule`. None is called from inside
/// those: a connection that fails while sending is reported once the current callback has returned.
public protocol RawWebSocketLoopDelegate: AnyObject {
    /// The upgrade of `connection` completed.
    func opened(_ connection: RawWebSocketConnection)
    /// A whole message arrived on `connection` in fragments, joined.
    func received(_ connection: RawWebSocketConnection, _ message: [UInt8], binary: Bool)
    /// A whole message that arrived in one frame, lent for the length of the call: the bytes are the
    /// connection's read buffer and are reused when it returns. The default copies them and calls `received`.
    func received(_ connection: RawWebSocketConnection, lent message: UnsafeRawBufferPointer, binary: Bool)
    /// `connection` closed; `code` is the peer's close code when it sent one, `reason` its reason or ours.
    func closed(_ connection: RawWebSocketConnection, code: UInt16?, reason: String)
    /// `connection` could not be made: refused, or the upgrade was not answered with a valid 101.
    func failed(_ connection: RawWebSocketConnection, _ why: String)
    /// The timer set with `schedule(after:)` fired.
    func timerFired()
}

extension RawWebSocketLoopDelegate {
    public func received(_ connection: RawWebSocketConnection, lent message: UnsafeRawBufferPointer, binary: Bool) {
        received(connection, Array(message), binary: binary)
    }
}
