import Dispatch
import Foundation
import SnapboardLock
import SnapboardTesting
import Testing

@testable import SnapboardCore
@testable import SnapboardPostgres
@testable import SnapboardStore

/// Two stores on one real PostgreSQL, as two nodes of a cluster: who owns a canvas, when another node may
/// take it, and that a stale owner's batch writes nothing (docs/architecture.md, "One owner per canvas").
@Suite("One owner per canvas")
struct OwnershipTests {
    /// Two nodes, `a` and `b`, on a fresh database of the shared server.
    struct Cluster {
        var server: PostgresServer
        var database: String
        var a: PostgresCanvasStore
        var b: PostgresCanvasStore

        /// Runs `sql` as the superuser in this database, behind the stores' backs.
        @discardableResult
        func sql(_ sql: String) throws -> String { try server.superuser(sql, database: database) }

        /// Waits until node `node` has no session in this database (a closed connection's backend ends a moment later).
        func waitForNoSession(node: String) throws {
            for _ in 0..<500 {
                if try sql("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'snapboard/\(node)'") == "0" { return }
                Thread.sleep(forTimeInterval: 0.01)
            }
            Issue.record("node \(node) still has a session")
        }
    }

    static func nodes() throws -> Cluster {
        let (server, url) = try freshDatabase()
        return Cluster(server: server, database: String(url.split(separator: "/").last!), a: try nodeStore(url, node: "a"), b: try nodeStore(url, node: "b"))
    }

    /// The first commit of canvas `id`, as a room would log it.
    static func commit(_ id: String, seq: Int = 1, opID: String = "o1") throws -> JournalEntry {
        var canvas = try Canvas(id: id)
        for i in 1..<seq { _ = try canvas.apply(.snap(at: Point(x: Double(10 * i), y: 50), shapeID: "s\(i)", spec: ShapeSpec(kind: "oval")), by: Participant(id: "p")) }
        let outcome = try canvas.apply(.snap(at: Point(x: 100, y: 100), shapeID: "x\(seq)", spec: ShapeSpec(kind: "star")), by: Participant(id: "p"))
        return .commit(CommitRecord(canvas: id, seq: outcome.seq, op: outcome.commit!, client: "c:1", opID: opID))
    }

    @Test("A second node under a live node's id, at another address, is refused its lease; at the same address (a restart) it gets it")
    func duplicateNodeID() throws {
        let cluster = try Self.nodes()
        let url = cluster.server.url(database: cluster.database)
        let twin = try PostgresCanvasStore(url: url, node: NodeIdentity(id: "a", address: "http://elsewhere.test:8080"), options: PostgresStoreOptions())
        let error = #expect(throws: NodeIDInUse.self) { try twin.startLease { _ in } }
        #expect(error?.address == cluster.a.node.address)
        #expect(!twin.leaseIsFresh)
        #expect(throws: LeaseLost.self) { try twin.load("c") }
        let restarted = try nodeStore(url, node: "a")
        #expect(restarted.leaseIsFresh)
    }

    @Test("A canvas without an owner is claimed by the first node that loads it; the other is pointed to the owner")
    func freeCanvas() throws {
        let cluster = try Self.nodes()
        let (a, b) = (cluster.a, cluster.b)
        _ = try a.load("c")
        #expect(try a.owners(["c", "never"]) == ["c": a.node])
        let error = #expect(throws: OwnedElsewhere.self) { try b.load("c") }
        #expect(error?.owner == a.node)
        #expect(throws: OwnedElsewhere.self) { try b.replace(with: try Canvas(id: "c").committedSnapshot) }
        #expect(throws: OwnedElsewhere.self) { try b.delete("c") }
        #expect(a.clusterFigures().takeovers == 0)
    }

    @Test("A canvas whose owner has no session on the database is taken at once, under a higher fence")
    func ownerWithoutSessions() throws {
        let cluster = try Self.nodes()
        let (a, b) = (cluster.a, cluster.b)
        _ = try a.load("c")
        // A node that holds its connection but was closed underneath, like one that crashed: its lease is
        // still fresh in the table, but it has no session left.
        let fence = try cluster.sql("SELECT fence FROM canvas WHERE id = 'c'")
        a.close()
        try cluster.waitForNoSession(node: "a")
        _ = try b.load("c")
        #expect(try b.owners(["c"]) == ["c": b.node])
        #expect(b.clusterFigures().takeovers == 1)
        #expect(try Int(cluster.sql("SELECT fence FROM canvas WHERE id = 'c'"))! > Int(fence)!)
    }

    @Test("A canvas whose owner's lease expired is taken although its sessions live; its batch then inserts nothing")
    func expiredLease() throws {
        let cluster = try Self.nodes()
        let (a, b) = (cluster.a, cluster.b)
        _ = try a.load("c")
        _ = try a.load("d")
        a.suspendLease()
        try cluster.sql("UPDATE node SET expires = now() - interval '1 second' WHERE id = 'a'")
        _ = try b.load("c")
        #expect(b.clusterFigures().takeovers == 1)
        // Still fresh by its own clock (the row was aged behind its back), so only the fence stops it: the
        // canvas it lost is fenced, the one it still owns is written.
        #expect(a.leaseIsFresh)
        let error = #expect(throws: Fenced.self) { try a.write([try Self.commit("c"), try Self.commit("d")]) }
        #expect(error?.canvases == ["c"])
        #expect(try cluster.sql("SELECT canvas FROM oplog ORDER BY canvas") == "d")
        #expect(a.clusterFigures().fencedBatches == 1)
        // The new owner writes seq 1 itself.
        try b.write([try Self.commit("c", opID: "b1")])
        #expect(try b.load("c").log.map(\.opID) == ["b1"])
    }

    @Test("The journal reports a fenced canvas failed and the batch's other canvases durable")
    func journalWithFencedCanvas() throws {
        let cluster = try Self.nodes()
        let (a, b) = (cluster.a, cluster.b)
        _ = try a.load("c")
        _ = try a.load("d")
        a.suspendLease()
        try cluster.sql("UPDATE node SET expires = now() - interval '1 second' WHERE id = 'a'")
        _ = try b.load("c")
        let reports = Locked<[Journal.Report]>([])
        let journal = Journal(store: a) { report in reports.withLock { $0.append(report) } }
        // Both queued before the thread starts: one batch.
        journal.append(try Self.commit("c"))
        journal.append(try Self.commit("d"))
        journal.start()
        journal.sync()
        journal.stop()
        let seen = reports.withLock { $0 }
        #expect(seen.count == 2)
        if case .durable(let durable)? = seen.first { #expect(durable == ["d": 1]) } else { Issue.record("no durable report: \(seen)") }
        if case .failed(let canvases, let error)? = seen.last {
            #expect(canvases == ["c"])
            #expect(error is Fenced)
        } else {
            Issue.record("no failed report: \(seen)")
        }
    }

    @Test("A hundred races of two nodes for a new canvas give one owner each time")
    func races() throws {
        let cluster = try Self.nodes()
        let (a, b) = (cluster.a, cluster.b)
        for i in 0..<100 {
            let id = "race-\(i)"
            let results = Locked<[String: Result<StoredCanvas, any Error>]>([:])
            let group = DispatchGroup()
            for store in [a, b] {
                group.enter()
                Thread {
                    let result = Result { try store.load(id) }
                    results.withLock { $0[store.node.id] = result }
                    group.leave()
                }.start()
            }
            group.wait()
            let all = results.withLock { $0 }
            let winners = all.filter { if case .success = $0.value { true } else { false } }.map(\.key)
            #expect(winners.count == 1, "race \(i): \(all)")
            guard let winner = winners.first else { continue }
            let loser = winner == "a" ? "b" : "a"
            if case .failure(let error) = all[loser] {
                #expect((error as? OwnedElsewhere)?.owner.id == winner, "race \(i): \(error)")
            }
            #expect(try a.owners([id])[id]?.id == winner)
            // Only the winner writes it.
            let (won, lost) = winner == "a" ? (a, b) : (b, a)
            #expect(throws: Fenced.self) { try lost.write([try Self.commit(id)]) }
            try won.write([try Self.commit(id)])
        }
    }

    @Test("A released canvas is taken by another node at once; the releaser's batch is fenced")
    func release() throws {
        let cluster = try Self.nodes()
        let (a, b) = (cluster.a, cluster.b)
        _ = try a.load("c")
        try a.write([try Self.commit("c")])
        try a.release("c")
        #expect(try a.owners(["c"]).isEmpty)
        #expect(try b.load("c").log.count == 1)
        #expect(b.clusterFigures().takeovers == 0, "a released canvas has no owner: a claim, not a takeover")
        #expect(a.clusterFigures().releases == 1)
        #expect(throws: Fenced.self) { try a.write([try Self.commit("c", seq: 2)]) }
    }

    @Test("A canvas loaded and never written leaves no row behind once released")
    func releaseForgetsEmptyCanvases() throws {
        let cluster = try Self.nodes()
        let a = cluster.a
        _ = try a.load("probe")
        try a.release("probe")
        #expect(try cluster.sql("SELECT count(*) FROM canvas WHERE id = 'probe'") == "0")
    }

    @Test("Leaving releases every canvas, ends the lease, and the journal's release and leave jobs reach the store")
    func leave() throws {
        let cluster = try Self.nodes()
        let (a, b) = (cluster.a, cluster.b)
        for id in ["x", "y", "z"] {
            _ = try a.load(id)
            try a.write([try Self.commit(id)])
        }
        let journal = Journal(store: a)
        journal.start()
        let released = Locked<(Bool, Bool)>((false, false))
        journal.release("x") { result in released.withLock { $0.0 = (try? result.get()) != nil } }
        journal.leave { result in released.withLock { $0.1 = (try? result.get()) != nil } }
        journal.sync()
        journal.stop()
        #expect(released.withLock { $0 } == (true, true))
        #expect(!a.leaseIsFresh)
        #expect(try cluster.sql("SELECT count(*) FROM node WHERE id = 'a'") == "0")
        for id in ["x", "y", "z"] { _ = try b.load(id) }
        #expect(a.clusterFigures().releases == 3)
        #expect(throws: LeaseLost.self) { try a.load("w") }
    }

    @Test("A node whose lease was never started neither claims nor writes")
    func noLease() throws {
        let (_, url) = try freshDatabase()
        let store = try PostgresCanvasStore(url: url, node: NodeIdentity(id: "idle", address: "http://idle"))
        #expect(!store.leaseIsFresh)
        #expect(throws: LeaseLost.self) { try store.load("c") }
    }

    @Test("A node id that does not fit application_name, or a lease too short to go stale before it expires, is refused")
    func badOptions() throws {
        let (_, url) = try freshDatabase()
        #expect(throws: PostgresOpenError.self) { try PostgresCanvasStore(url: url, node: NodeIdentity(id: String(repeating: "n", count: 54), address: "")) }
        #expect(throws: PostgresOpenError.self) { try PostgresCanvasStore(url: url, node: NodeIdentity(id: "a b", address: "")) }
        var options = PostgresStoreOptions()
        options.lease = .seconds(2)
        #expect(throws: PostgresOpenError.self) { try PostgresCanvasStore(url: url, node: NodeIdentity(id: "a", address: ""), options: options) }
    }

    @Test("Rows out of range or of the wrong kind load as DamagedCanvas, never a trap")
    func damagedRows() throws {
        let cluster = try Self.nodes()
        let a = cluster.a
        _ = try a.load("c")
        try a.write([try Self.commit("c")])
        let cases = [
            "UPDATE oplog SET seq = -5 WHERE canvas = 'c'",
            "UPDATE oplog SET seq = 9007199254740993 WHERE canvas = 'c'",
            "UPDATE oplog SET op = '\\x0109'::bytea WHERE canvas = 'c'",
            "UPDATE oplog SET undoes = 0 WHERE canvas = 'c'",
            "INSERT INTO epoch (canvas, id, start) VALUES ('c', 'e', -1)",
            "INSERT INTO snapshot (canvas, seq, state) VALUES ('c', 1, '\\x7b7d'::bytea)",
        ]
        for sql in cases {
            try cluster.sql("BEGIN; \(sql); COMMIT;")
            #expect(throws: DamagedCanvas.self, "\(sql)") { try a.load("c") }
            try cluster.sql("BEGIN; DELETE FROM oplog; DELETE FROM epoch; DELETE FROM snapshot; COMMIT;")
            try a.write([try Self.commit("c")])
        }
        #expect(try a.load("c").log.count == 1)
    }

    @Test("A node whose renewals fail is told its lease is stale, writes nothing, and is told again once a renewal succeeds")
    func staleLease() throws {
        let (_, url) = try freshDatabase()
        let (server, database) = (try sharedPostgres.get(), String(url.split(separator: "/").last!))
        var options = PostgresStoreOptions()
        options.lease = .seconds(3)
        let store = try PostgresCanvasStore(url: url, node: NodeIdentity(id: "a", address: "http://a"), options: options)
        let changes = Locked<[Bool]>([])
        try store.startLease { fresh in changes.withLock { $0.append(fresh) } }
        _ = try store.load("c")
        // Renewals wait for this lock (and give up at the lock timeout) for 4 s: longer than the 1 s the
        // node stays fresh after its last renewal began.
        let blocker = Thread { _ = try? server.superuser("BEGIN; LOCK TABLE node IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(4); COMMIT;", database: database) }
        blocker.start()
        for _ in 0..<1000 where store.leaseIsFresh { Thread.sleep(forTimeInterval: 0.01) }
        #expect(!store.leaseIsFresh)
        #expect(throws: LeaseLost.self) { try store.write([try Self.commit("c")]) }
        #expect(throws: LeaseLost.self) { try store.load("d") }
        for _ in 0..<2000 where changes.withLock({ $0 }) != [false, true] { Thread.sleep(forTimeInterval: 0.01) }
        #expect(changes.withLock { $0 } == [false, true])
        #expect(store.leaseIsFresh)
        #expect(store.clusterFigures().leaseFailures >= 1)
        try store.write([try Self.commit("c")])
    }

    @Test("A reader's connection loads a canvas another node owns without claiming it; owners() leaves out an expired owner")
    func readersDoNotClaim() throws {
        let cluster = try Self.nodes()
        let (a, b) = (cluster.a, cluster.b)
        _ = try a.load("c")
        try a.write([try Self.commit("c")])
        #expect(try b.readOnlyConnection().load("c").log.count == 1)
        #expect(try b.owners(["c"]) == ["c": a.node])
        a.suspendLease()
        try cluster.sql("UPDATE node SET expires = now() - interval '1 second' WHERE id = 'a'")
        #expect(try b.owners(["c"]).isEmpty)
        try a.write([try Self.commit("c", seq: 2)])
    }
}

/// The connection's values, sent and read in binary, against the real server.
@Suite("PostgreSQL values")
struct PostgresValueTests {
    @Test("Parameters and columns of every type the store uses come back as they were, NULLs and negatives included")
    func roundTrip() throws {
        let (_, url) = try freshDatabase()
        let c = try PostgresConnection(url: url)
        let rows = try c.query("""
            SELECT $1::bigint AS i, $2::text AS t, $3::bytea AS b, $4::float8 AS d, $5::bool AS f, $6::text AS n,
                   (-5)::int4 AS i4, (-7)::int2 AS i2, 'x'::varchar AS v,
                   extract(epoch FROM '2026-01-02 03:04:05.25+00'::timestamptz)::float8 AS e, '2026-01-02 03:04:05.25+00'::timestamptz AS ts,
                   array_to_string($7::text[], ',', '-') AS ta, array_to_string($8::bigint[], ',', '-') AS ia,
                   cardinality($9::bytea[]) AS bn, cardinality($10::text[]) AS empty
            """, [.int(-9_007_199_254_740_991), .text("é ✓"), .bytes([0, 255, 1]), .double(-0.125), .bool(true), .null,
                  .textArray(["a", nil, "c"]), .intArray([1, nil, -3]), .bytesArray([[1], nil]), .textArray([])])
        #expect(try rows.int(0, "i") == -9_007_199_254_740_991)
        #expect(try rows.text(0, "t") == "é ✓")
        #expect(try rows.bytes(0, "b") == [0, 255, 1])
        #expect(try rows.double(0, "d") == -0.125)
        #expect(try rows.bool(0, "f") == true)
        #expect(try rows.text(0, "n") == nil)
        #expect(try rows.int(0, "i4") == -5)
        #expect(try rows.int(0, "i2") == -7)
        #expect(try rows.text(0, "v") == "x")
        #expect(try rows.double(0, "ts") == rows.double(0, "e"))
        #expect(try rows.text(0, "ta") == "a,-,c")
        #expect(try rows.text(0, "ia") == "1,-,-3")
        #expect(try rows.int(0, "bn") == 2)
        #expect(try rows.int(0, "empty") == 0)
        #expect(throws: PostgresError.self) { try rows.text(0, "i") }
        #expect(throws: PostgresError.self) { try rows.int(0, "i", in: 0...10) }
        let error = #expect(throws: PostgresError.self) { try c.query("SELECT 1/0") }
        #expect(error?.kind == .server(sqlState: "22012"))
        #expect(c.isOpen, "a server error leaves the connection usable")
    }
}
