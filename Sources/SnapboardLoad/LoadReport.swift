import Foundation
import SnapboardProtocol

/// Everything one `snapboard-load` run measured; `--json` writes it, `table` prints it.
public struct LoadReport: Codable, Sendable {
    public struct Config: Codable, Sendable {
        public var url: String
        public var canvases, clients, draggers, shapes: Int
        public var rate, duration, warmup, ramp: Double
        public var seed: UInt64
        /// Ops per gesture when fixed, moves only, begins and ends all at once (`LoadPlan`).
        public var gestureSteps: Int?
        public var movesOnly = false, aligned = false
        /// `drags` or `content` (`LoadPlan.Workload`).
        public var workload = "drags"
        /// Watchers that join canvas 0 at once in the middle of the window (a join storm), over how many seconds.
        public var storm = 0
        public var stormWithin = 1.0
        /// The client transport: `raw` (the tool's own epoll loop) or `lws` (libwebsockets).
        public var transport: String?
        /// The protocol revision the clients asked for (`--revision`): below 2, presence with whole session lists.
        public var revision = ClientMessage.protocolRevision

        public init(url: String, canvases: Int, clients: Int, draggers: Int, shapes: Int,
                    rate: Double, duration: Double, warmup: Double, ramp: Double, seed: UInt64) {
            (self.url, self.canvases, self.clients, self.draggers, self.shapes) = (url, canvases, clients, draggers, shapes)
            (self.rate, self.duration, self.warmup, self.ramp, self.seed) = (rate, duration, warmup, ramp, seed)
        }
    }

    public struct Connections: Codable, Sendable {
        /// Upgrades that completed, and attempts that failed.
        public var opened = 0, failed = 0
        /// The close codes of the connections lost during the run (`drops`).
        public var closeCodes: [String: Int] = [:]
    }

    public struct Ops: Codable, Sendable {
        /// Ops due in the measured window (and the gesture ends of the drain after it), all sent.
        public var sent = 0
        /// Of those, the committing ones (gesture ends) and how many were acked.
        public var committing = 0, acked = 0
        public var rejected: [String: Int] = [:]
        /// Errors the server answered with (P10): a load tool bug if ever non-zero.
        public var errors: [String: Int] = [:]
    }

    public struct Second: Codable, Sendable {
        /// Seconds since the measured window began.
        public var t: Int
        public var ops: Int
        public var deltas: Int
        public var p99PeerMs: Double

        public init(t: Int, ops: Int, deltas: Int, p99PeerMs: Double) {
            (self.t, self.ops, self.deltas, self.p99PeerMs) = (t, ops, deltas, p99PeerMs)
        }
    }

    public struct Server: Codable, Sendable {
        public var pid: Int32
        /// CPU over the measured window, in percent of one core.
        public var cpuPercent: Double
        /// Resident memory: before the first connection, at its peak, and at the end of the window.
        public var rssBaselineMB, rssPeakMB, rssEndMB: Double
        /// `(rssEnd - rssBaseline) / connections open`.
        public var rssPerConnectionKB: Double
        /// The server's CPU time over the window divided by the ops sent in it, and by the shape updates
        /// delivered in it (one op listed in a delta to one other client), in microseconds.
        public var cpuMicrosPerOp: Double?
        public var cpuMicrosPerDelivery: Double?

        public init(pid: Int32, rssMB: Double) {
            self.pid = pid
            cpuPercent = 0
            (rssBaselineMB, rssPeakMB, rssEndMB) = (rssMB, rssMB, rssMB)
            rssPerConnectionKB = 0
        }
    }

    /// Watchers joining one canvas at once (`--storm`): how long until the last was welcomed.
    public struct JoinStorm: Codable, Sendable {
        public var clients = 0, welcomed = 0, failed = 0
        /// From the first storm connection's start to the last storm welcome, in seconds.
        public var lastWelcomeSeconds = 0.0
        /// The longest wait of one watcher, from the start of its connection to its welcome, in seconds.
        public var slowestWelcomeSeconds = 0.0
        public init(clients: Int) { self.clients = clients }
    }

    public struct ConvergenceResult: Codable, Sendable {
        public var canvases = 0, replicas = 0
        public var mismatched = 0
        /// Canvases whose `GET` failed (the server gone): their replicas could not be checked.
        public var unchecked = 0
        public var examples: [String] = []
    }

    public var config: Config
    /// The measured window, in seconds (warm-up excluded).
    public var seconds = 0.0
    public var connections = Connections()
    public var ops = Ops()
    /// Delta messages received by all clients in the window.
    public var deltas = 0
    /// Op sent → its ack to the sender (commits only: gesture ends), for ops due within the window: the
    /// drain's ends, every gesture ending at once as the window closes, are not sampled.
    public var ackLatency: LatencySummary?
    /// Op sent → a delta listing it reaches another client on the canvas, per receiving client, for ops due
    /// within the window.
    public var peerLatency: LatencySummary?
    /// Op due → written to its socket, for ops due within the window: how late the tool itself sent, which
    /// both latencies above include (they count from each op's due time).
    public var sendLag: LatencySummary?
    public var ackCDF: [[Double]] = []
    public var peerCDF: [[Double]] = []
    /// Fresh welcomes in the middle of a run (P17), and connections the server closed or lost (drops).
    public var resyncs = 0
    public var drops = 0
    public var timeline: [Second] = []
    public var server: Server?
    /// The load tool's own CPU over the window, in percent of one core: near 100, the figures measure
    /// the tool as much as the server.
    public var loadCpuPercent = 0.0
    public var convergence = ConvergenceResult()
    /// Ops due and shape updates delivered inside the window (what the CPU figures divide by).
    public var windowOps = 0, windowDeliveries = 0
    public var joinStorm: JoinStorm?

    public init(config: Config) { self.config = config }

    /// Ops sent per second over the window.
    public var opsPerSecond: Double { seconds > 0 ? Double(ops.sent) / seconds : 0 }
    public var deltasPerSecond: Double { seconds > 0 ? Double(deltas) / seconds : 0 }

    /// The report as an aligned text table.
    public func table() -> String {
        var rows: [(String, String)] = []
        func add(_ k: String, _ v: String) { rows.append((k, v)) }
        func f(_ v: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", v) }
        func lat(_ l: LatencySummary?) -> String {
            guard let l, l.count > 0 else { return "-" }
            return "p50 \(f(l.p50)) · p90 \(f(l.p90)) · p99 \(f(l.p99)) · p99.9 \(f(l.p999)) · max \(f(l.max)) ms (n=\(l.count))"
        }
        let doing = config.workload == "content" ? "editing content" : "dragging"
        add("load", "\(config.canvases) canvases × \(config.clients) clients, \(config.draggers) \(doing) at \(f(config.rate, 0)) Hz, \(f(seconds, 1)) s measured")
        add("connections", "\(connections.opened) opened, \(connections.failed) failed, \(drops) dropped")
        add("ops", "\(ops.sent) sent (\(f(opsPerSecond, 0))/s), \(ops.acked)/\(ops.committing) commits acked")
        add("rejected", ops.rejected.isEmpty ? "0" : ops.rejected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        if !ops.errors.isEmpty { add("errors", ops.errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")) }
        add("deltas", "\(deltas) received (\(f(deltasPerSecond, 0))/s)")
        add("op → ack", lat(ackLatency))
        add("op → peer", lat(peerLatency))
        add("send lag", lat(sendLag))
        if config.workload == "content" {
            // Text drafts are neither broadcast nor acked (P26): they are in "ops sent" and nowhere else.
            add("measured", "op → peer: every op of selection moves and end drags, and text ends; op → ack: gesture ends; text drafts: not broadcast, not measured")
        }
        add("resyncs, drops", "\(resyncs), \(drops)")
        if let s = server {
            add("server", "pid \(s.pid): CPU \(f(s.cpuPercent, 1)) % of a core, RSS \(f(s.rssEndMB, 1)) MB (peak \(f(s.rssPeakMB, 1)), baseline \(f(s.rssBaselineMB, 1)), \(f(s.rssPerConnectionKB, 1)) KB per connection)")
            if let op = s.cpuMicrosPerOp, let delivery = s.cpuMicrosPerDelivery {
                add("server CPU", "\(f(op, 1)) µs per op in, \(f(delivery, 2)) µs per delivered shape update")
            }
        }
        if let j = joinStorm {
            add("join storm", "\(j.welcomed)/\(j.clients) welcomed, \(j.failed) failed; last welcome \(f(j.lastWelcomeSeconds, 3)) s after the first connect; slowest \(f(j.slowestWelcomeSeconds * 1000, 1)) ms from its connect")
        }
        var tool = "CPU \(f(loadCpuPercent, 1)) % of a core"
        if windowOps > 0, seconds > 0 { tool += ", \(f(loadCpuPercent / 100 * seconds * 1_000_000 / Double(windowOps), 1)) µs per op sent" }
        if let transport = config.transport { tool += " (transport \(transport))" }
        add("load tool", tool)
        var verdict = convergence.mismatched == 0
            ? "\(convergence.replicas) replicas on \(convergence.canvases) canvases equal the server"
            : "\(convergence.mismatched) of \(convergence.replicas) replicas differ: " + convergence.examples.joined(separator: "; ")
        if convergence.unchecked > 0 { verdict += "; \(convergence.unchecked) canvases not checked (GET failed)" }
        add("convergence", verdict)
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
    }
}
