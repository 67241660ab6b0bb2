#if canImport(Glibc)
import Glibc
#endif

/// How long the next tick waits: `minimum` while the service thread has room, stretching towards `maximum`
/// as it gets busy. A longer tick coalesces more updates into each live delta, so a loaded server sends
/// fewer, fuller frames per op in (Colyseus patches every 50 ms; Liveblocks throttles clients to 100 ms),
/// at the price of at most `maximum - minimum` ms more latency, and only while it is loaded.
///
/// The load is the service thread's own CPU time over the last quarter second: below `relaxed` of a core
/// the tick is `minimum`, at `saturated` and above it is `maximum`, and in between it grows linearly.
struct TickPacer {
    let minimum: Int
    let maximum: Int
    static let relaxed = 0.5
    static let saturated = 0.85
    /// Seconds over which the load is measured before the tick changes.
    static let window = 0.25
    private var since: (wall: Double, cpu: Double)?
    /// The tick in milliseconds, as last decided.
    private(set) var current: Int
    /// The service thread's share of a core over the last window.
    private(set) var load = 0.0

    init(minimum: Int, maximum: Int) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
        current = minimum
    }

    /// The tick to wait now, given the wall clock and the service thread's CPU time, both in seconds.
    mutating func next(wall: Double, cpu: Double) -> Int {
        guard let since else {
            self.since = (wall, cpu)
            return current
        }
        guard wall - since.wall >= Self.window else { return current }
        load = (cpu - since.cpu) / (wall - since.wall)
        self.since = (wall, cpu)
        let f = min(max((load - Self.relaxed) / (Self.saturated - Self.relaxed), 0), 1)
        current = minimum + Int((Double(maximum - minimum) * f).rounded())
        return current
    }

    /// CPU seconds the calling thread has used.
    static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
