import CLibWebSockets
import Logging
import SnapboardLock

#if canImport(Glibc)
import Glibc
#endif

/// Bounds how many log lines can be written per interval, whatever a remote peer does: past `burst` lines
/// in one `interval`, lines are only counted, and the next line after the interval says how many were
/// left out. At most `burst + 1` lines per interval.
public struct LogLimiter: Sendable {
    public let burst: Int
    public let interval: Double
    private var windowStart = -Double.infinity
    private var written = 0
    private var suppressed = 0

    public init(burst: Int = 20, interval: Double = 10) {
        self.burst = burst
        self.interval = interval
    }

    /// The lines to write now for `line` logged at `now` (seconds): none, the line, or a count of the lines
    /// left out in the last interval and then the line.
    public mutating func admit(_ line: String, now: Double) -> [String] {
        var out: [String] = []
        if now - windowStart >= interval {
            if suppressed > 0 { out.append("(\(suppressed) log lines left out in the last \(Int(interval)) s)") }
            windowStart = now
            written = 0
            suppressed = 0
        }
        guard written < burst else {
            suppressed += 1
            return out
        }
        written += 1
        out.append(line)
        return out
    }
}

/// libwebsockets' own log lines (some of which a peer can cause, such as a request whose headers do not
/// fit) go through one limiter, then to swift-log under the label `libwebsockets`, in the same format as
/// the server's own lines.
private let lwsLogLimiter = Locked(LogLimiter())
private let lwsLogger = Logger(label: "libwebsockets")

func emitLibwebsocketsLog(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    var text = String(cString: line)
    while text.last?.isNewline == true { text.removeLast() }
    let lines = lwsLogLimiter.withLock { $0.admit(text, now: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9) }
    let severity: Logger.Level = level & Int32(LLL_ERR) != 0 ? .error : level & Int32(LLL_WARN) != 0 ? .warning : .notice
    for out in lines { lwsLogger.log(level: severity, "\(out)") }
}
