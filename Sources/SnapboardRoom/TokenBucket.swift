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

    /// Takes `count` tokens (at most a burst's worth: a larger count takes the whole burst) when there are
    /// that many at `now`; false, taking none, when the rate is spent.
    public mutating func take(_ count: Double = 1, now: Double) -> Bool {
        tokens = min(rate, tokens + max(0, now - refilled) * rate)
        refilled = now
        let cost = min(max(count, 1), rate)
        guard tokens >= cost else { return false }
        tokens -= cost
        return true
    }
}
