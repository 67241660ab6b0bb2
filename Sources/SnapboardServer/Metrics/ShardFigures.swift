import SnapboardCore

/// One metric as one shard has it.
struct MetricFamily: Sendable {
    var name: String
    var type: String
    var help: String
    var samples: [MetricSample]
}

struct MetricSample: Sendable {
    /// `{key="value",…}`, or empty.
    var labels: String
    var value: Double
}

/// What a shard contributes to `/metrics`.
struct ShardFigures: Sendable {
    var families: [MetricFamily]
    var ackLatency: BucketHistogram
}
