import SnapboardCore
import SnapboardProtocol
import SnapboardRoom
import SnapboardStore

extension Server {
    /// How many canvases the per-canvas gauges name: the top ones, so the series stay bounded.
    static let topCanvases = 10

    /// Bytes waiting in every session's outbox.
    var queuedBytes: Int { registry.rooms.values.reduce(0) { $0 + $1.queuedBytes } }

    /// `/metrics` over the figures of every shard: each shard's samples carry `shard="N"` when there are
    /// several (sum them across shards), and what the process has once (limits, the journal, memory) is
    /// written once.
    func prometheusText(_ shards: [ShardFigures]) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in samples {
                out += "\(name)\(labels) \(JSONWriter.text(value))\n"
            }
        }
        for (i, family) in (shards.first?.families ?? []).enumerated() {
            var samples: [(String, Double)] = []
            for (index, figures) in shards.enumerated() {
                for sample in figures.families[i].samples {
                    samples.append((shards.count > 1 ? Self.labels(sample.labels, shard: index) : sample.labels, sample.value))
                }
            }
            metric(family.name, family.type, family.help, samples)
        }
        let limits = options.limits
        metric("snapboard_limit", "gauge", "The limits in force (--max-connections and the like; descriptors is the process's file-descriptor limit).", [
            (#"{name="connections"}"#, Double(limits.connections)),
            (#"{name="connections_per_ip"}"#, Double(limits.connectionsPerIP)),
            (#"{name="connections_per_canvas"}"#, Double(limits.connectionsPerCanvas)),
            (#"{name="canvases"}"#, Double(limits.canvases)),
            (#"{name="stored_canvases"}"#, Double(limits.storedCanvases)),
            (#"{name="uploads"}"#, Double(limits.uploads)),
            (#"{name="uploads_per_ip"}"#, Double(limits.uploadsPerIP)),
            (#"{name="upload_memory_bytes"}"#, Double(limits.uploadMemoryBytes)),
            (#"{name="min_upload_bytes_per_second"}"#, Double(limits.minUploadBytesPerSecond)),
            (#"{name="read_workers"}"#, Double(limits.readWorkers)),
            (#"{name="queued_reads"}"#, Double(limits.queuedReads)),
            (#"{name="reads_per_second_per_ip"}"#, limits.readsPerSecondPerIP),
            (#"{name="reads_per_second_per_token"}"#, limits.readsPerSecondPerToken),
            (#"{name="shapes_per_canvas"}"#, Double(options.canvas.maxShapes)),
            (#"{name="message_bytes"}"#, Double(options.maxMessageBytes)),
            (#"{name="unfinished_message_bytes"}"#, Double(limits.unfinishedMessageBytes)),
            (#"{name="ops_per_second"}"#, options.room.opsPerSecond),
            (#"{name="ops_per_second_per_ip"}"#, limits.opsPerSecondPerIP),
            (#"{name="handshake_seconds"}"#, Double(limits.handshakeSeconds)),
            (#"{name="descriptors"}"#, Double(descriptors.limit)),
        ])
        metric("snapboard_shards", "gauge", "Service threads, each serving its own share of the canvases (--shards).", [("", Double(shards.count))])
        var ackLatency = BucketHistogram()
        for figures in shards { ackLatency.add(figures.ackLatency) }
        out += ackLatency.prometheus("snapboard_op_ack_seconds", help: "Time from receiving a committing op to queueing its ack, once durable.")
        out += ProcessFigures.read().prometheus
        let journalStats = journal.stats.withLock { $0 }
        metric("snapboard_journal_entries_total", "counter", "Commits and checkpoints written to SQLite.", [("", Double(journalStats.entries))])
        metric("snapboard_journal_write_failures_total", "counter", "Journal transactions that failed.", [("", Double(journalStats.failures))])
        out += journalStats.batchSizes.prometheus("snapboard_journal_batch_entries", help: "Entries per group-commit transaction.")
        out += journalStats.commitSeconds.prometheus("snapboard_journal_commit_seconds", help: "Time to write and commit one group-commit transaction.")
        if let shared = group?.shared { out += Self.clusterText(shared.clusterFigures(), leaseFresh: shared.leaseIsFresh) }
        return out
    }

    /// A cluster node's figures (`SharedCanvasStore.clusterFigures`): what an operator watches for lease
    /// moves, failovers and replication (docs/operations.md, "Running a cluster").
    static func clusterText(_ f: ClusterFigures, leaseFresh: Bool) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in samples { out += "\(name)\(labels) \(JSONWriter.text(value))\n" }
        }
        metric("snapboard_cluster_takeovers_total", "counter", "Canvases this node took from another owner (dead, or one that released them).", [("", Double(f.takeovers))])
        metric("snapboard_cluster_releases_total", "counter", "Canvases this node gave up (idle, or leaving the cluster).", [("", Double(f.releases))])
        metric("snapboard_cluster_fenced_batches_total", "counter", "Commit batches in which a canvas turned out owned by another node (or a newer fence): nothing was written for it.",
               [("", Double(f.fencedBatches))])
        metric("snapboard_cluster_unknown_outcomes_total", "counter", "Commits whose outcome was unknown (the connection lost during COMMIT), by how they ended.", [
            (#"{outcome="acked"}"#, Double(f.unknownOutcomes.acked)),
            (#"{outcome="retried"}"#, Double(f.unknownOutcomes.retried)),
            (#"{outcome="reloaded"}"#, Double(f.unknownOutcomes.reloaded)),
        ])
        metric("snapboard_cluster_lease_renewals_total", "counter", "Successful renewals of this node's lease.", [("", Double(f.leaseRenewals))])
        metric("snapboard_cluster_lease_failures_total", "counter", "Lease renewals that failed (an error or a timeout).", [("", Double(f.leaseFailures))])
        metric("snapboard_cluster_lease_fresh", "gauge", "1 while this node's lease is fresh (it may ack), else 0 (/healthz answers 503).", [("", leaseFresh ? 1 : 0)])
        // Declared even with no standby to measure, so a dashboard's query of it finds the family.
        metric("snapboard_cluster_replication_lag_seconds", "gauge", "How far the slowest standby's replay is behind the primary (no sample: unknown).",
               f.replicationLagSeconds.map { [("", $0)] } ?? [])
        return out
    }

    /// `{a="b"}` with `shard="N"` added.
    static func labels(_ labels: String, shard: Int) -> String {
        labels.isEmpty ? "{shard=\"\(shard)\"}" : "{shard=\"\(shard)\"," + labels.dropFirst()
    }

    /// This shard's own figures for `/metrics`, taken on its thread.
    func shardFigures() -> ShardFigures {
        var families: [MetricFamily] = []
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
            families.append(MetricFamily(name: name, type: type, help: help, samples: samples.map { MetricSample(labels: $0.0, value: $0.1) }))
        }
        func labelled(_ key: String, _ counts: [String: Int]) -> [(String, Double)] {
            counts.keys.sorted().map { ("{\(key)=\"\($0)\"}", Double(counts[$0]!)) }
        }
        var refused = refusals
        if let group, shard?.index ?? 0 == 0 {
            let atDoor = group.acceptorRefusals.withLock { $0 }
            if atDoor > 0 { refused["descriptors", default: 0] += atDoor }
        }
        metric("snapboard_connections", "gauge", "Open WebSocket connections.", [("", Double(connectionCount))])
        metric("snapboard_connections_opened_total", "counter", "WebSocket connections accepted.", [("", Double(connectionsOpened))])
        metric("snapboard_refused_total", "counter", "Requests refused before reaching a canvas, by reason (token checks, origin, host, admin, limits, descriptors).",
               labelled("reason", refused))
        metric("snapboard_canvases_loaded", "gauge", "Canvases in memory.", [("", Double(registry.rooms.count))])
        metric("snapboard_lingering_sockets", "gauge", "Closed connections kept open up to 2 s to read what their peer still sends, so it gets the close frame instead of a reset.",
               [("", Double(lingerer.count))])
        metric("snapboard_connections_by_peer_max", "gauge", "Open WebSockets from the busiest IP address.",
               [("", Double(peers.values.map(\.connections).max() ?? 0))])
        metric("snapboard_ops_total", "counter", "Operations received, by kind.", labelled("kind", metrics.ops))
        metric("snapboard_rejects_total", "counter", "Operations refused, by code.", labelled("code", metrics.rejects))
        metric("snapboard_errors_total", "counter", "Invalid messages, by code.", labelled("code", metrics.errors))
        metric("snapboard_acks_total", "counter", "Committed operations acknowledged.", [("", Double(metrics.acks))])
        metric("snapboard_duplicate_ops_total", "counter", "Resent op ids answered with their original ack.", [("", Double(metrics.duplicateOps))])
        metric("snapboard_deltas_total", "counter", "Deltas queued to clients.", [("", Double(metrics.deltasSent))])
        metric("snapboard_frames_sent_total", "counter", "WebSocket frames written.", [("", Double(metrics.framesSent))])
        metric("snapboard_bytes_sent_total", "counter", "Payload bytes written.", [("", Double(metrics.bytesSent))])
        metric("snapboard_presence_bytes_total", "counter", "Presence bytes queued to clients: every copy of a change, and 1.1 clients' session lists.",
               [("", Double(metrics.presenceBytes))])
        metric("snapboard_tick_milliseconds", "gauge", "The tick's length now: --tick-ms, stretching towards --max-tick-ms while the service thread is busy.",
               [("", Double(pacer.current))])
        metric("snapboard_service_thread_load", "gauge", "The service thread's share of a core over the last quarter second.", [("", pacer.load)])
        metric("snapboard_live_merges_total", "counter", "Live deltas merged for a client behind by a tick.", [("", Double(metrics.coalesced))])
        metric("snapboard_resyncs_total", "counter", "Clients sent a fresh welcome for falling behind.", [("", Double(metrics.resyncs))])
        metric("snapboard_cursors_relayed_total", "counter", "Cursor positions relayed, one per session per tick.", [("", Double(metrics.cursorsRelayed))])
        metric("snapboard_cursors_dropped_total", "counter", "Cursor messages dropped over a session's budget.", [("", Double(metrics.cursorsDropped))])
        metric("snapboard_slow_closes_total", "counter", "Clients closed with 4000 for staying behind.", [("", Double(metrics.slowCloses))])
        metric("snapboard_resumes_total", "counter", "Clients resumed from since.", [("", Double(metrics.resumes))])
        metric("snapboard_storage_failures_total", "counter", "Canvases rolled back to their durable state after a failed write.", [("", Double(metrics.storageFailures))])
        metric("snapboard_lease_expiries_total", "counter", "Gestures committed because their lease expired.", [("", Double(metrics.leaseExpiries))])
        if group?.shared != nil {
            metric("snapboard_cluster_canvases_dropped_total", "counter", "Canvases dropped (sessions closed with 1012) because this node no longer owned them: fenced, or its lease lapsed.",
                   [("", Double(registry.drops))])
            metric("snapboard_cluster_lease_lapses_total", "counter", "Times this node's lease stopped being fresh.", [("", Double(leaseLapses))])
        }
        metric("snapboard_queue_bytes", "gauge", "Bytes waiting in client outboxes.", [("", Double(queuedBytes))])
        // The busiest canvases by name: at most `topCanvases` series each, whatever the number of canvases,
        // and none unless --metrics-canvas-names asks for them.
        func top(_ value: (Room) -> Int) -> [(String, Double)] {
            guard options.metricsCanvasNames else { return [] }
            var ranked: [(canvas: String, value: Int)] = []
            for (canvas, room) in registry.rooms {
                let v = value(room)
                if v > 0 { ranked.append((canvas, v)) }
            }
            ranked.sort { a, b in a.value != b.value ? a.value > b.value : a.canvas < b.canvas }
            return ranked.prefix(Self.topCanvases).map { entry in ("{canvas=\"\(entry.canvas)\"}", Double(entry.value)) }
        }
        metric("snapboard_canvas_sessions", "gauge", "Sessions on each of the \(Self.topCanvases) canvases with the most.", top(\.sessionCount))
        metric("snapboard_canvas_shapes", "gauge", "Shapes on each of the \(Self.topCanvases) loaded canvases with the most.", top { $0.canvas.count })
        metric("snapboard_canvas_queue_bytes", "gauge", "Bytes waiting for the sessions of each of the \(Self.topCanvases) canvases with the most.",
               top(\.queuedBytes))
        return ShardFigures(families: families, ackLatency: metrics.ackLatency)
    }
}
