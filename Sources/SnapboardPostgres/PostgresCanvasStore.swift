import Foundation
import Logging
import SnapboardCore
import SnapboardLock
import SnapboardStore

/// How a node uses the cluster's database.
public struct PostgresStoreOptions: Sendable {
    /// The node's lease: renewed every third of it; the node stops acking 2 s before it runs out.
    public var lease: Duration = .seconds(10)
    /// How long any statement, COMMIT included, may take before the connection is closed.
    public var commitTimeout: Duration = .seconds(5)
    /// How long a claim (or a batch) waits for a canvas row's lock.
    public var lockTimeout: Duration = .seconds(3)
    /// How long a session may sit idle inside a transaction: a paused node cannot hold a row lock longer.
    public var idleInTransactionTimeout: Duration = .seconds(2)

    public init() {}

    /// The settings each session starts with.
    var sessionOptions: String {
        "-c idle_in_transaction_session_timeout=\(idleInTransactionTimeout.nanoseconds / 1_000_000) -c lock_timeout=\(lockTimeout.nanoseconds / 1_000_000)"
    }
}

/// Canvases in PostgreSQL, shared by the nodes of a cluster: each canvas has at most one owner, which alone
/// writes it, under a fence that every batch checks in its own transaction (docs/architecture.md, "One owner
/// per canvas").
///
/// Blocking: every method runs on the caller's thread, the journal's (or a reader's, on a
/// `readOnlyConnection()`), over one connection it holds; the lease renews on a thread and a connection of
/// its own. Calls are serialised by a lock that is never contended in the server (one journal thread).
public final class PostgresCanvasStore: SharedCanvasStore, @unchecked Sendable {
    public let node: NodeIdentity
    public let options: PostgresStoreOptions
    private let target: PostgresTarget
    let logger: Logger
    let figures = Locked(ClusterFigures())
    let lease: NodeLease

    /// The caller's connection and the fence this store took for each canvas it owns.
    struct Session {
        var connection: PostgresConnection?
        var fences: [String: Int64] = [:]
    }

    private let session = Locked(Session())

    /// Connects to `url` (a libpq URL; several hosts with `target_session_attrs=read-write` for a failover
    /// cluster), migrates the schema (refusing a newer one) and returns a store for node `node`. Its lease
    /// is not started: `startLease` before the first load (claims and writes need a fresh lease).
    public init(url: String, node: NodeIdentity, options: PostgresStoreOptions = PostgresStoreOptions(),
                logger: Logger = Logger(label: "snapboard.postgres")) throws {
        try Self.check(node: node, options: options)
        let target = try PostgresTarget(url)
        (self.node, self.options, self.target, self.logger) = (node, options, target, logger)
        let applicationName = Self.applicationName(node)
        let sessionOptions = options.sessionOptions
        let timeout = options.commitTimeout
        lease = NodeLease(node: node, duration: options.lease, figures: figures, logger: logger) {
            try PostgresConnection(target: target, applicationName: applicationName, options: sessionOptions, statementTimeout: timeout)
        }
        try session.withLock { s in
            let c = try connection(&s)
            try PostgresSchema.migrate(c)
        }
    }

    deinit { close() }

    /// `snapboard/<node>`: what `pg_stat_activity` shows for every session of the node, so another node can
    /// tell whether it is still connected.
    static func applicationName(_ node: NodeIdentity) -> String { "snapboard/\(node.id)" }

    /// A node id fits in `application_name` (63 bytes) after `snapboard/`, in characters it keeps as they are.
    static func check(node: NodeIdentity, options: PostgresStoreOptions) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-")
        guard (1...53).contains(node.id.count), node.id.allSatisfy(allowed.contains) else {
            throw PostgresOpenError(description: "a node id is 1 to 53 of A-Z a-z 0-9 . _ : - (got \(node.id.prefix(80).debugDescription))")
        }
        guard options.lease >= .seconds(3), options.lease <= .seconds(3600) else {
            throw PostgresOpenError(description: "the lease must be 3 to 3600 seconds (it goes stale 2 s before it expires)")
        }
        guard options.commitTimeout >= .milliseconds(100), options.commitTimeout <= .seconds(3600) else {
            throw PostgresOpenError(description: "the commit timeout must be 0.1 to 3600 seconds")
        }
    }

    /// Ends the lease's renewals and closes the connections, releasing nothing (as a crash would; another
    /// node may take this node's canvases once it sees no session of it).
    public func close() {
        lease.stop()
        session.withLock { s in
            s.connection?.close()
            s.connection = nil
        }
    }

    // MARK: Connections

    func connection(_ s: inout Session) throws -> PostgresConnection {
        if let c = s.connection, c.isOpen { return c }
        s.connection = nil
        let c = try PostgresConnection(target: target, applicationName: Self.applicationName(node), options: options.sessionOptions,
                                       statementTimeout: options.commitTimeout)
        s.connection = c
        return c
    }

    /// Runs `body` inside a transaction and commits it. A connection that turns out broken before anything
    /// was committed (it died while idle: a failover, a restart) is replaced once. An error rolls back.
    private func transaction<T>(_ s: inout Session, _ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let reused = s.connection?.isOpen == true
            let c = try connection(&s)
            var committing = false
            do {
                try c.query("BEGIN")
                let value = try body(c)
                committing = true
                try c.commit()
                return value
            } catch let error as PostgresError where error.connectionGone && !committing && reused && attempt == 1 {
                s.connection = nil
                continue
            } catch {
                c.rollback()
                if !c.isOpen { s.connection = nil }
                throw error
            }
        }
    }

    /// Runs reads without a transaction, replacing once a connection that died while idle.
    private func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try session.withLock { s in
            var attempt = 0
            while true {
                attempt += 1
                let reused = s.connection?.isOpen == true
                let c = try connection(&s)
                do {
                    return try body(c)
                } catch let error as PostgresError where error.connectionGone {
                    s.connection = nil
                    if reused && attempt == 1 { continue }
                    throw error
                }
            }
        }
    }

    // MARK: SharedCanvasStore

    public var leaseIsFresh: Bool { lease.isFresh }

    public func startLease(onChange: @escaping @Sendable (Bool) -> Void) throws { try lease.start(onChange: onChange) }

    /// Stops renewing and forgets nothing: for tests, a node whose lease thread stalls.
    func suspendLease() { lease.suspend() }

    /// The server process of the caller's connection (tests find its session by it); 0 when none. Waits
    /// for a call under way.
    var backendPID: Int32 { session.withLock { $0.connection?.backendPID ?? 0 } }

    public func clusterFigures() -> ClusterFigures { figures.withLock { $0 } }

    /// Takes canvas `id` inside the caller's transaction, by the rules of `SharedCanvasStore`: the fence
    /// taken, and the owner it was taken from (nil when it had none or was this node).
    private func claim(_ id: String, _ c: PostgresConnection) throws -> (fence: Int64, from: String?) {
        // A release may remove a row that was never written while this waits for its lock: then try again.
        for _ in 0..<3 {
            try c.query("INSERT INTO canvas (id, owner, fence) VALUES ($1, NULL, 0) ON CONFLICT (id) DO NOTHING", [.text(id)])
            let rows = try c.query("""
                SELECT c.owner, n.address, COALESCE(n.expires > now(), false) AS leased,
                       EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = current_database()
                                                                    AND a.application_name = 'snapboard/' || c.owner) AS connected
                FROM canvas c LEFT JOIN node n ON n.id = c.owner WHERE c.id = $1 FOR UPDATE OF c
                """, [.text(id)])
            guard !rows.isEmpty else { continue }
            let owner = try rows.text(0, "owner")
            if let owner, owner != node.id, try rows.bool(0, "leased") == true, try rows.bool(0, "connected") == true {
                throw OwnedElsewhere(canvas: id, owner: NodeIdentity(id: owner, address: try rows.text(0, "address") ?? ""))
            }
            let taken = try c.query("UPDATE canvas SET owner = $2, fence = nextval('fence_seq') WHERE id = $1 RETURNING fence",
                                    [.text(id), .text(node.id)])
            guard let fence = try taken.int(0, "fence", in: 1...Int.max) else {
                throw PostgresError(kind: .unexpectedRow, message: "canvas \(id) has no fence")
            }
            return (Int64(fence), owner == node.id ? nil : owner)
        }
        throw PostgresError(kind: .unexpectedRow, message: "canvas \(id)'s row kept disappearing during a claim")
    }

    /// Claims `id`, runs `body` in the same transaction and, once committed, records the fence.
    private func claiming<T>(_ id: String, _ body: (PostgresConnection) throws -> T) throws -> T {
        try session.withLock { s in
            guard lease.isFresh else { throw LeaseLost() }
            let (claim, value) = try transaction(&s) { c in
                let claim = try self.claim(id, c)
                return (claim, try body(c))
            }
            s.fences[id] = claim.fence
            if let from = claim.from {
                figures.withLock { $0.takeovers += 1 }
                logger.info("took canvas \(id) over from node \(from)", metadata: ["fence": "\(claim.fence)"])
            }
            return value
        }
    }

    public func release(_ id: String) throws {
        try session.withLock { s in
            guard s.fences.removeValue(forKey: id) != nil else { return }
            try transaction(&s) { c in
                let released = try c.query("UPDATE canvas SET owner = NULL WHERE id = $1 AND owner = $2", [.text(id), .text(node.id)])
                // A canvas never written is forgotten (its fence lives on in the sequence).
                try c.query("""
                    DELETE FROM canvas WHERE id = $1 AND owner IS NULL
                        AND NOT EXISTS (SELECT 1 FROM snapshot WHERE canvas = $1) AND NOT EXISTS (SELECT 1 FROM oplog WHERE canvas = $1)
                    """, [.text(id)])
                if released.affected > 0 { figures.withLock { $0.releases += 1 } }
            }
        }
    }

    public func leave() throws {
        lease.stop()
        try session.withLock { s in
            s.fences.removeAll()
            try transaction(&s) { c in
                let released = try c.query("UPDATE canvas SET owner = NULL WHERE owner = $1 RETURNING id", [.text(node.id)])
                let ids = (0..<released.count).compactMap { try? released.text($0, "id") }
                try c.query("""
                    DELETE FROM canvas c WHERE c.id = ANY($1::text[]) AND c.owner IS NULL
                        AND NOT EXISTS (SELECT 1 FROM snapshot WHERE canvas = c.id) AND NOT EXISTS (SELECT 1 FROM oplog WHERE canvas = c.id)
                    """, [.textArray(ids)])
                try c.query("DELETE FROM node WHERE id = $1", [.text(node.id)])
                figures.withLock { $0.releases += ids.count }
            }
        }
    }

    public func owners(_ ids: [String]) throws -> [String: NodeIdentity] {
        try read { c in
            let rows = try c.query("""
                SELECT c.id, c.owner, n.address FROM canvas c JOIN node n ON n.id = c.owner
                WHERE c.id = ANY($1::text[]) AND n.expires > now()
                  AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = current_database()
                                                               AND a.application_name = 'snapboard/' || c.owner)
                """, [.textArray(ids)])
            var owners: [String: NodeIdentity] = [:]
            for i in 0..<rows.count {
                guard let id = try rows.text(i, "id"), let owner = try rows.text(i, "owner"), let address = try rows.text(i, "address") else { continue }
                owners[id] = NodeIdentity(id: owner, address: address)
            }
            return owners
        }
    }

    // MARK: CanvasStore

    /// Claims the canvas (`SharedCanvasStore`), then reads it in the same transaction.
    public func load(_ id: String) throws -> StoredCanvas {
        try claiming(id) { try CanvasRows.load(id, $0) }
    }

    public func replace(with snapshot: CanvasSnapshot) throws {
        try claiming(snapshot.id) { try CanvasRows.replace(with: snapshot, $0) }
    }

    public func delete(_ id: String) throws -> Bool {
        try claiming(id) { try CanvasRows.delete(id, $0) }
    }

    public func canvases() throws -> [String] { try read { try CanvasRows.canvases($0) } }

    public func summaries(prefix: String, after: String?, limit: Int) throws -> [CanvasSummary] {
        try read { try CanvasRows.summaries(prefix: prefix, after: after, limit: limit, $0) }
    }

    public func history(_ id: String, after: Int, limit: Int) throws -> [LoggedCommit] {
        try read { try CanvasRows.history(id, after: after, limit: limit, $0) }
    }

    public func readOnlyConnection() throws -> CanvasStore {
        try PostgresCanvasReader(target: target, node: node, options: options)
    }

    /// One transaction per batch (`SharedCanvasStore`): the canvases' rows locked and their owner and fence
    /// checked, the entries written, the lease checked, COMMIT. Canvases found fenced are left out: the
    /// rest are written in a transaction of their own, then `Fenced` names them.
    public func write(_ entries: [JournalEntry]) throws {
        guard !entries.isEmpty else { return }
        // Checked again right before COMMIT; this only saves a transaction that could not commit.
        guard lease.isFresh else { throw LeaseLost() }
        try session.withLock { s in
            var entries = entries
            var fenced: Set<String> = []
            do {
                while !entries.isEmpty {
                    let lost = try writeOnce(entries, &s)
                    if lost.isEmpty { break }
                    fenced.formUnion(lost)
                    for id in lost { s.fences[id] = nil }
                    entries.removeAll { lost.contains($0.canvas) }
                }
            } catch let more as Fenced {
                fenced.formUnion(more.canvases)
            }
            if !fenced.isEmpty {
                figures.withLock { $0.fencedBatches += 1 }
                logger.warning("fenced: another node owns \(fenced.sorted().joined(separator: ", ")) now")
                throw Fenced(canvases: fenced)
            }
        }
    }

    /// The canvases of `canvases` (locked in id order, `FOR UPDATE`) whose row does not hold this node and
    /// the fence it took.
    func lockAndCheck(_ canvases: Set<String>, _ fences: [String: Int64], _ c: PostgresConnection) throws -> Set<String> {
        let rows = try c.query("SELECT id, owner, fence FROM canvas WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE",
                               [.textArray(canvases.sorted())])
        var held: Set<String> = []
        for i in 0..<rows.count {
            guard let id = try rows.text(i, "id") else { continue }
            if try rows.text(i, "owner") == node.id, let fence = try rows.int(i, "fence"), fence == fences[id] { held.insert(id) }
        }
        return canvases.subtracting(held)
    }

    /// One attempt at the batch: the canvases found fenced (rolled back, nothing written), or none when it
    /// committed (or its unknown outcome was resolved as committed).
    private func writeOnce(_ entries: [JournalEntry], _ s: inout Session) throws -> Set<String> {
        let canvases = Set(entries.map(\.canvas))
        var attempt = 0
        while true {
            attempt += 1
            let reused = s.connection?.isOpen == true
            let c = try connection(&s)
            do {
                try c.query("BEGIN")
                let lost = try lockAndCheck(canvases, s.fences, c)
                if !lost.isEmpty {
                    c.rollback()
                    return lost
                }
                let fences = s.fences
                try CanvasRows.write(entries, fence: { fences[$0] ?? 0 }, c)
                guard lease.isFresh else { throw LeaseLost() }
            } catch let error as PostgresError where error.connectionGone && reused && attempt == 1 {
                // Died while idle (nothing of this batch can have committed): once more on a new connection.
                s.connection = nil
                continue
            } catch {
                c.rollback()
                if !c.isOpen { s.connection = nil }
                throw error
            }
            do {
                try c.commit()
                return []
            } catch let error as PostgresError where error.connectionGone {
                s.connection = nil
                try resolve(entries, after: error, &s)
                return []
            } catch {
                if !c.isOpen { s.connection = nil }
                throw error
            }
        }
    }
}
