/// A rate limit: `rate` tokens a second, holding at most one second's worth (the burst). Pure: time is a
/// parameter.
public struct TokenBucket: Sendable, Equatable {
    public let rate: Double
    public private(set) var tokens: Double
    private var refilled: Double

    /// A full bucket at `now`.
    public init(rate: Double, now: Double) {
        self.rate = rate
        tokens = rate
        refilled = now
    }

    /// Takes one token when there is one at `now`; false when the rate is spent.
    public mutating func take(now: Double) -> Bool {
        tokens = min(rate, tokens + max(0, now - refilled) * rate)
        refilled = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
