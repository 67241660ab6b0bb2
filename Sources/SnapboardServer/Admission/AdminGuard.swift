import SnapboardLWS

/// Failed admin authentications, by IP address, for the whole process: past `burst` failures an address
/// is held up, and its requests that would be checked against the admin token get 429 without being
/// checked (so a guess that hits cannot be told apart) until failures have drained, one every
/// `drainSeconds`. Pure: time is a parameter.
struct AdminGuard {
    /// Failures an address may make before it is held up.
    static let burst = 10.0
    /// Seconds for one failure to drain: 10 guesses a minute at most, after the burst.
    static let drainSeconds = 6.0
    /// Addresses tracked at once; past it, new addresses share one budget, so that guesses from many
    /// addresses cannot grow the table without bound.
    static let maxAddresses = 10_000
    static let shared = "(every other address)"

    private var failures: [String: (count: Double, at: Double)] = [:]
    private var lastPrune = -Double.infinity
    /// Bounds the lines failed authentications write, which a peer causes.
    var log = LogLimiter(burst: 20, interval: 10)

    /// Seconds until `address` may try the admin token again at `now`; nil when it may now.
    func retryAfter(_ address: String, now: Double) -> Double? {
        let outstanding = Self.drained(failures[key(address)], now: now)
        guard outstanding > Self.burst - 1 else { return nil }
        return (outstanding - (Self.burst - 1)) * Self.drainSeconds
    }

    /// Counts a failed authentication from `address` at `now`.
    mutating func fail(_ address: String, now: Double) {
        if failures[address] == nil, failures.count >= Self.maxAddresses, now - lastPrune >= 1 {
            lastPrune = now
            failures = failures.filter { Self.drained($0.value, now: now) > 0 }
        }
        let key = key(address)
        failures[key] = (Self.drained(failures[key], now: now) + 1, now)
    }

    /// Addresses held in the table (for tests and `/metrics`).
    var trackedAddresses: Int { failures.count }

    private func key(_ address: String) -> String {
        failures[address] != nil || failures.count < Self.maxAddresses ? address : Self.shared
    }

    private static func drained(_ entry: (count: Double, at: Double)?, now: Double) -> Double {
        guard let entry else { return 0 }
        return max(0, entry.count - max(0, now - entry.at) / drainSeconds)
    }
}
