/// When to try reconnecting: exponential backoff with full jitter, reset by a successful connection.
public struct ReconnectPolicy: Sendable {
    public var base: Double = 0.25
    public var cap: Double = 8
    public private(set) var attempt = 0

    public init(base: Double = 0.25, cap: Double = 8) {
        self.base = base
        self.cap = cap
    }

    /// Seconds to wait before the next attempt, given a random number in 0..<1.
    public mutating func nextDelay(random: Double) -> Double {
        defer { attempt += 1 }
        return min(cap, base * Double(1 << min(attempt, 16))) * (0.5 + random / 2)
    }

    public mutating func connected() { attempt = 0 }
}
