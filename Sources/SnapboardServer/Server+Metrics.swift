/// A Prometheus histogram of durations, in seconds.
struct LatencyHistogram {
    static let bounds: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]
    var counts = [Int](repeating: 0, count: bounds.count + 1)
    var sum = 0.0
    var count = 0

    mutating func record(_ d: Duration) {
        let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        let i = LatencyHistogram.bounds.firstIndex { s <= $0 } ?? LatencyHistogram.bounds.count
        counts[i] += 1
        sum += s
        count += 1
    }
}

extension Server {
    /// `/metrics` in the Prometheus text format.
    func prometheusText() -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in samples {
                let v = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
                out += "\(name)\(labels) \(v)\n"
            }
        }
        func labelled(_ key: String, _ counts: [String: Int]) -> [(String, Double)] {
            counts.keys.sorted().map { ("{\(key)=\"\($0)\"}", Double(counts[$0]!)) }
        }
        metric("snapboard_connections", "gauge", "Open WebSocket connections.", [("", Double(connectionCount))])
        metric("snapboard_connections_opened_total", "counter", "WebSocket connections accepted.", [("", Double(connectionsOpened))])
        metric("snapboard_canvases_loaded", "gauge", "Canvases in memory.", [("", Double(roomCount))])
        metric("snapboard_ops_total", "counter", "Operations received, by kind.", labelled("kind", metrics.ops))
        metric("snapboard_rejects_total", "counter", "Operations refused, by code.", labelled("code", metrics.rejects))
        metric("snapboard_errors_total", "counter", "Invalid messages, by code.", labelled("code", metrics.errors))
        metric("snapboard_acks_total", "counter", "Committed operations acknowledged.", [("", Double(metrics.acks))])
        metric("snapboard_duplicate_ops_total", "counter", "Resent op ids answered with their original ack.", [("", Double(metrics.duplicateOps))])
        metric("snapboard_deltas_total", "counter", "Deltas queued to clients.", [("", Double(metrics.deltasSent))])
        metric("snapboard_frames_sent_total", "counter", "WebSocket frames written.", [("", Double(metrics.framesSent))])
        metric("snapboard_bytes_sent_total", "counter", "Payload bytes written.", [("", Double(metrics.bytesSent))])
        metric("snapboard_live_merges_total", "counter", "Live deltas merged for a client behind by a tick.", [("", Double(metrics.coalesced))])
        metric("snapboard_resyncs_total", "counter", "Clients sent a fresh welcome for falling behind.", [("", Double(metrics.resyncs))])
        metric("snapboard_slow_closes_total", "counter", "Clients closed with 4000 for staying behind.", [("", Double(metrics.slowCloses))])
        metric("snapboard_resumes_total", "counter", "Clients resumed from since.", [("", Double(metrics.resumes))])
        metric("snapboard_lease_expiries_total", "counter", "Gestures committed because their lease expired.", [("", Double(metrics.leaseExpiries))])
        metric("snapboard_queue_bytes", "gauge", "Bytes waiting in client outboxes.", [("", Double(queueDepthBytes))])
        out += "# HELP snapboard_op_ack_seconds Time from receiving a committing op to queueing its ack.\n"
        out += "# TYPE snapboard_op_ack_seconds histogram\n"
        var cumulative = 0
        for (i, bound) in LatencyHistogram.bounds.enumerated() {
            cumulative += ackLatency.counts[i]
            out += "snapboard_op_ack_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "snapboard_op_ack_seconds_bucket{le=\"+Inf\"} \(ackLatency.count)\n"
        out += "snapboard_op_ack_seconds_sum \(ackLatency.sum)\n"
        out += "snapboard_op_ack_seconds_count \(ackLatency.count)\n"
        return out
    }
}
