import Histogram

/// Latency percentiles in milliseconds.
public struct LatencySummary: Codable, Sendable, Equatable {
    public var count: UInt64
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var p999: Double
    public var max: Double
    public var mean: Double

    /// Summarises a histogram of microseconds.
    public init(_ h: Histogram<UInt64>) {
        count = h.totalCount
        func ms(_ v: UInt64) -> Double { Double(v) / 1000 }
        p50 = ms(h.valueAtPercentile(50))
        p90 = ms(h.valueAtPercentile(90))
        p99 = ms(h.valueAtPercentile(99))
        p999 = ms(h.valueAtPercentile(99.9))
        max = ms(h.max)
        mean = h.mean / 1000
    }
}

/// The cumulative distribution of a histogram of microseconds, as (milliseconds, percentile) points
/// for plotting: a point per 1 % up to 90, then finer towards the tail.
public func cdfPoints(_ h: Histogram<UInt64>) -> [[Double]] {
    guard h.totalCount > 0 else { return [] }
    var percentiles = Array(stride(from: 1.0, through: 90, by: 1))
    percentiles += [92, 94, 96, 97, 98, 99, 99.5, 99.9, 99.95, 99.99, 100]
    return percentiles.map { [Double(h.valueAtPercentile($0)) / 1000, $0] }
}
