import Foundation

/// A value that threads share behind a lock, reached only inside `withLock`.
///
/// `Synchronization.Mutex` does the same, but on Linux it waits on raw futexes, which ThreadSanitizer
/// cannot see: every access it guards was reported as a race (`make test-tsan`). This is a pthread mutex
/// (Foundation's `NSLock`), whose ordering ThreadSanitizer follows, so its reports are real ones.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value while holding the lock.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
