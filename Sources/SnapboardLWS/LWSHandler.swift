import CLibWebSockets

/// What an `LWSContext` calls back. Every method runs on the service thread, the thread inside `run()`.
public protocol LWSHandler: AnyObject {
    /// A libwebsockets callback of the context's one protocol. Return 0 to go on, non-zero to close.
    func callback(_ socket: LWSSocket, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32
    /// The timer set with `schedule(after:)` fired.
    func timerFired()
    /// The thread was woken by another thread (after the work it handed over with `perform` ran).
    func woken()
}

extension LWSHandler {
    public func timerFired() {}
    public func woken() {}
}
