/// A Prometheus-style histogram with fixed upper bounds.
public struct BucketHistogram: Sendable {
    /// Bounds for durations in seconds, from 100 µs to 1 s.
    public static let seconds: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]
    /// Bounds for counts, such as how many entries a transaction wrote.
    public static let counts: [Double] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]

    public let bounds: [Double]
    public private(set) var counts: [Int]
    public private(set) var sum = 0.0
    public private(set) var count = 0

    public init(bounds: [Double] = BucketHistogram.seconds) {
        self.bounds = bounds
        counts = [Int](repeating: 0, count: bounds.count + 1)
    }

    public mutating func record(_ value: Double) {
        counts[bounds.firstIndex { value <= $0 } ?? bounds.count] += 1
        sum += value
        count += 1
    }

    /// Adds the counts of `other`, which has the same bounds (another shard's).
    public mutating func add(_ other: BucketHistogram) {
        precondition(other.bounds == bounds, "histograms with different bounds")
        for i in counts.indices { counts[i] += other.counts[i] }
        sum += other.sum
        count += other.count
    }

    /// The Prometheus text lines of this histogram under `name`.
    public func prometheus(_ name: String, help: String) -> String {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        var cumulative = 0
        for (i, bound) in bounds.enumerated() {
            cumulative += counts[i]
            out += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "\(name)_bucket{le=\"+Inf\"} \(count)\n\(name)_sum \(sum)\n\(name)_count \(count)\n"
        return out
    }
}
