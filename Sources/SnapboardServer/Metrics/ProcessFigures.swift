import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The process's own figures for `/metrics`, under the names Prometheus' client libraries use, read
/// from `/proc/self` (Linux): CPU time, resident memory, open and allowed file descriptors, start time.
struct ProcessFigures {
    var cpuSeconds = 0.0
    var residentBytes = 0.0
    var virtualBytes = 0.0
    var openFDs = 0.0
    var maxFDs = 0.0
    var startTime = 0.0

    static func read() -> ProcessFigures {
        var figures = ProcessFigures()
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        figures.cpuSeconds = seconds(usage.ru_utime) + seconds(usage.ru_stime)
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in status.split(separator: "\n") {
                let parts = line.split { $0 == " " || $0 == "\t" }
                guard parts.count >= 2, let kb = Double(parts[1]) else { continue }
                if parts[0] == "VmRSS:" { figures.residentBytes = kb * 1024 }
                if parts[0] == "VmSize:" { figures.virtualBytes = kb * 1024 }
            }
        }
        figures.openFDs = Double((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 0)
        var limits = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 { figures.maxFDs = Double(limits.rlim_cur) }
        figures.startTime = startedAt
        return figures
    }

    /// When this process started, in seconds since 1970 (taken when first asked: at the first `/metrics`
    /// the server is long past its start, so `/proc/self/stat`'s boot-relative start is used instead).
    static let startedAt: Double = {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")"),
              let uptime = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
              let secondsUp = Double(uptime.split(separator: " ").first ?? "")
        else { return Date().timeIntervalSince1970 }
        // Field 22 of the whole line (the 20th after the command name) is the start in clock ticks after boot.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return Date().timeIntervalSince1970 }
        let bootedAt = Date().timeIntervalSince1970 - secondsUp
        return bootedAt + ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }()

    var prometheus: String {
        var out = ""
        for (name, type, help, value) in [
            ("process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.", cpuSeconds),
            ("process_resident_memory_bytes", "gauge", "Resident memory size, in bytes.", residentBytes),
            ("process_virtual_memory_bytes", "gauge", "Virtual memory size, in bytes.", virtualBytes),
            ("process_open_fds", "gauge", "Open file descriptors.", openFDs),
            ("process_max_fds", "gauge", "The most file descriptors the process may open.", maxFDs),
            ("process_start_time_seconds", "gauge", "Start time of the process since 1970, in seconds.", startTime),
        ] {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        return out
    }
}
