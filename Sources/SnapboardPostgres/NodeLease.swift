import Dispatch
import Foundation
import Logging
import SnapboardLock
import SnapboardStore

/// A node's lease in the `node` table, renewed every `duration / 3` (more often for a short lease) on a thread and a connection of its
/// own, so a slow commit on the journal's connection never delays a renewal.
///
/// Each renewal sets `expires = now() + duration` by the database's clock, in a transaction begun after the
/// attempt started. The node counts itself fresh while its last successful renewal *started* less than
/// `duration - 2 s` ago by its own monotonic clock: the database's expiry is then at least 2 s later
/// (less any clock-rate difference), so the node stops acking before another node may take its canvases.
final class NodeLease: @unchecked Sendable {
    /// How much sooner than the database's expiry the node stops counting itself fresh.
    static let margin: Duration = .seconds(2)

    let node: NodeIdentity
    let duration: Duration
    private let connect: @Sendable () throws -> PostgresConnection
    private let figures: Locked<ClusterFigures>
    private let logger: Logger

    private struct State {
        /// When the last successful renewal started.
        var renewed: ContinuousClock.Instant?
        var running = false
        var stopping = false
        /// What `onChange` was last told.
        var reported = false
        var onChange: (@Sendable (Bool) -> Void)?
    }

    private let state = Locked(State())
    /// Delivers `onChange` calls one at a time, in the order they were decided.
    private let reports = DispatchQueue(label: "snapboard-lease-reports")
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// The lease thread's connection (the first renewal's, on the caller's thread, before the thread starts).
    private var connection: PostgresConnection?

    init(node: NodeIdentity, duration: Duration, figures: Locked<ClusterFigures>, logger: Logger,
         connect: @escaping @Sendable () throws -> PostgresConnection) {
        (self.node, self.duration, self.figures, self.logger, self.connect) = (node, duration, figures, logger, connect)
    }

    var isFresh: Bool {
        state.withLock { s in s.renewed.map { ContinuousClock.now - $0 < duration - Self.margin } ?? false }
    }

    /// Renews once on the caller's thread (throwing when that fails), then keeps renewing on a thread.
    func start(onChange: @escaping @Sendable (Bool) -> Void) throws {
        // Fresh once `start` returns: the first renewal is no change to report.
        let already = state.withLock { s in
            defer { (s.running, s.onChange, s.reported) = (true, onChange, true) }
            return s.running
        }
        guard !already else { return }
        do {
            try renew()
        } catch {
            state.withLock { $0.running = false }
            throw error
        }
        let thread = Thread { [self] in run() }
        thread.name = "snapboard-lease"
        thread.start()
    }

    /// Stops renewing (waits for the thread) and forgets the lease: not fresh from now on. The row stays
    /// until it expires; `leave` deletes it.
    func stop() {
        let wasRunning = state.withLock { s in
            defer { s.stopping = true; s.renewed = nil }
            return s.running && !s.stopping
        }
        guard wasRunning else { return }
        wake.signal()
        finished.wait()
        connection?.close()
        connection = nil
    }

    /// Stops renewing without forgetting the last renewal: for tests, a node whose renewals stall.
    func suspend() {
        let renewed = state.withLock { $0.renewed }
        stop()
        state.withLock { $0.renewed = renewed }
    }

    /// A third of the lease, and at most half the time it stays fresh, so that one late renewal never
    /// makes a short lease stale.
    private var period: Duration { min(duration / 3, (duration - Self.margin) / 2) }

    /// One renewal, in its own transaction (so a notice that its commit was not replicated fails it).
    private func renew() throws {
        let started = ContinuousClock.now
        do {
            if connection?.isOpen != true { connection = try connect() }
            guard let c = connection else { return }
            c.statementTimeout = min(period, .seconds(5))
            try c.query("BEGIN")
            let renewed = try c.query("""
                INSERT INTO node (id, address, expires) VALUES ($1, $2, now() + make_interval(secs => $3))
                ON CONFLICT (id) DO UPDATE SET address = EXCLUDED.address, expires = EXCLUDED.expires
                WHERE node.expires <= now() OR node.address = EXCLUDED.address
                """, [.text(node.id), .text(node.address), .double(duration.seconds)])
            guard renewed.affected == 1 else {
                // Another live node has this id: two nodes under one id would take canvases from each other.
                let other = try? c.query("SELECT address FROM node WHERE id = $1", [.text(node.id)]).text(0, "address")
                try? c.query("ROLLBACK")
                throw NodeIDInUse(node: node.id, address: (other ?? nil) ?? "another address")
            }
            try c.commit()
        } catch {
            connection?.close()
            connection = nil
            figures.withLock { $0.leaseFailures += 1 }
            throw error
        }
        state.withLock { s in
            // A renewal that ends after `stop` must not make a stopped lease fresh again.
            guard !s.stopping else { return }
            if s.renewed.map({ $0 < started }) ?? true { s.renewed = started }
            if !s.reported && s.running { report(true, s.onChange) }
            s.reported = true
        }
        figures.withLock { $0.leaseRenewals += 1 }
        // When the lease would go stale without another renewal, say so then (a renewal may hang until its deadline).
        let stale = duration - Self.margin
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(stale.nanoseconds + 5_000_000)) { [weak self] in
            self?.checkStale()
        }
        replicationLag()
    }

    /// How far the slowest standby's replay is behind (needs `pg_monitor` for the lag columns; nil otherwise).
    private func replicationLag() {
        guard let c = connection else { return }
        let lag = try? c.query("SELECT extract(epoch FROM max(replay_lag))::float8 AS lag FROM pg_stat_replication").double(0, "lag")
        figures.withLock { $0.replicationLagSeconds = (lag ?? nil).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } }
    }

    private func checkStale() {
        // Decided under the lock, so a renewal that lands meanwhile cannot be overtaken by a stale report.
        let change = state.withLock { s -> Bool in
            let fresh = s.renewed.map { ContinuousClock.now - $0 < duration - Self.margin } ?? false
            guard !fresh, s.reported, s.running, !s.stopping else { return false }
            s.reported = false
            report(false, s.onChange)
            return true
        }
        if change { logger.warning("the node's lease is not fresh: it stops acking until a renewal succeeds", metadata: ["node": "\(node.id)"]) }
    }

    /// Queues `onChange(fresh)`. Called under the state lock, right where the change is decided, so the
    /// reports queue delivers changes in the order they happened.
    private func report(_ fresh: Bool, _ onChange: (@Sendable (Bool) -> Void)?) {
        reports.async { onChange?(fresh) }
    }

    private func run() {
        var next = ContinuousClock.now + period
        while !state.withLock({ $0.stopping }) {
            let now = ContinuousClock.now
            if now < next {
                let wait = next - now
                _ = wake.wait(timeout: .now() + .nanoseconds(wait.nanoseconds))
                continue
            }
            do {
                try renew()
                next = now + period
            } catch {
                logger.warning("lease renewal failed: \(error)", metadata: ["node": "\(node.id)"])
                checkStale()
                // Try again soon: the database may be back (a failover) well before the next period.
                next = ContinuousClock.now + min(period, .milliseconds(500))
            }
        }
        state.withLock { $0.running = false }
        finished.signal()
    }
}

/// A node's lease cannot be taken: a live node with another address has the same `--node-id`.
public struct NodeIDInUse: Error, CustomStringConvertible, Sendable {
    public var node: String
    public var address: String

    public var description: String {
        "node id \(node) is in use by a live node at \(address): give each node its own --node-id"
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var nanoseconds: Int { Int(components.seconds) * 1_000_000_000 + Int(components.attoseconds / 1_000_000_000) }
}
