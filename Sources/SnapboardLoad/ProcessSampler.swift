import Foundation

/// CPU time and resident memory of another process, read from `/proc/<pid>` (Linux).
public struct ProcessSampler: Sendable {
    public let pid: Int32
    private let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    public init(pid: Int32) { self.pid = pid }

    /// User plus system CPU seconds so far; nil once the process is gone.
    public func cpuSeconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name; utime and stime are fields 14 and 15 of the whole line.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }

    /// Resident set size in megabytes; nil once the process is gone.
    public func rssMB() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kb / 1024
    }
}

/// Microseconds on the monotonic clock.
public func monotonicMicros() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
}

/// This process's user plus system CPU seconds so far.
public func ownCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
