import Foundation
import Logging
import SnapboardProtocol
import SnapboardLock

#if canImport(Glibc)
import Glibc
#endif

/// `--log-format json`: one JSON object a line on standard error, for log shippers. Every line has `time`
/// (UTC, ISO 8601 with milliseconds), `level`, `label` (`snapboard` or `libwebsockets`) and `message`; the
/// metadata's keys follow at the top level (`canvas`, `session`, `client`, `remote`, `code`, `seconds`, …),
/// each as a string, as swift-log gives them.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    /// One write per line, whole, whichever thread logs.
    private static let output = Locked(())

    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = Self.line(time: Date(), level: event.level, label: label, message: "\(event.message)",
                             metadata: metadata.merging(event.metadata ?? [:]) { $1 })
        line.append(0x0A)
        Self.output.withLock { _ in
            line.withUnsafeBytes { bytes in
                var written = 0
                while written < bytes.count {
                    let n = write(STDERR_FILENO, bytes.baseAddress! + written, bytes.count - written)
                    guard n > 0 else { return }
                    written += n
                }
            }
        }
    }

    /// One log line's JSON, without its newline.
    public static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> [UInt8] {
        var w = JSONWriter(reserving: 128 + message.utf8.count)
        w.beginObject()
        w.string("time", timestamp(time))
        w.string("level", level.rawValue)
        w.string("label", label)
        w.string("message", message)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where !["time", "level", "label", "message"].contains(key) {
            w.key(key)
            w.string("\(value)")
        }
        w.endObject()
        return w.bytes
    }

    /// `2026-11-24T11:00:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var t = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        let millis = Int((seconds - seconds.rounded(.down)) * 1000)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)Z"
    }
}
