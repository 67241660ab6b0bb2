import Dispatch
import Foundation
import SnapboardLock
import SnapboardTesting
import Testing

@testable import SnapboardCore
@testable import SnapboardPostgres
@testable import SnapboardStore

/// Commits whose outcome the node cannot see: a COMMIT that hangs is ended by closing the connection and
/// resolved from the log (rule 4), and a COMMIT that returns with a warning that its wait for synchronous
/// replication was cancelled is a failure, never an ack (rule 3). docs/architecture.md has the rules.
@Suite("Commit outcomes")
struct CommitOutcomeTests {
    /// Commits 1...`count` of canvas `id` by one client.
    static func commits(_ id: String, _ seqs: ClosedRange<Int>) throws -> [JournalEntry] {
        var canvas = try Canvas(id: id)
        var entries: [JournalEntry] = []
        for i in 1...seqs.upperBound {
            let outcome = try canvas.apply(.snap(at: Point(x: Double(20 * i), y: 60), shapeID: "s\(i)", spec: ShapeSpec(kind: "oval")), by: Participant(id: "p"))
            if seqs.contains(outcome.seq) {
                entries.append(.commit(CommitRecord(canvas: id, seq: outcome.seq, op: outcome.commit!, client: "c:1", opID: "o\(outcome.seq)")))
            }
        }
        return entries
    }

    /// A node on a fresh database of the shared server whose commits time out after a second, and a way to
    /// run SQL as the superuser in that database.
    static func node() throws -> (PostgresCanvasStore, @Sendable (String) throws -> String) {
        let (server, url) = try freshDatabase()
        let database = String(url.split(separator: "/").last!)
        var options = PostgresStoreOptions()
        options.commitTimeout = .seconds(1)
        let store = try nodeStore(url, node: "a", options: options)
        return (store, { try server.superuser($0, database: database) })
    }

    /// Makes the next COMMIT that logged ops take 2.5 s (a deferred trigger sleeping once), then fail when
    /// `failing`.
    static func slowCommit(failing: Bool, _ sql: (String) throws -> String) throws {
        _ = try sql("""
            CREATE SEQUENCE slow_once; GRANT USAGE ON SEQUENCE slow_once TO snapboard;
            CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF nextval('slow_once') = 1 THEN
                    PERFORM pg_sleep(2.5);
                    \(failing ? "RAISE EXCEPTION 'the first commit fails, late';" : "")
                END IF;
                RETURN NULL;
            END $$;
            CREATE CONSTRAINT TRIGGER slow AFTER INSERT ON oplog DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit();
            """)
    }

    @Test("[rule 4] A commit that outlives the commit timeout is ended by closing the connection; found in the log, it is acked")
    func hungCommitAcked() throws {
        let (store, sql) = try Self.node()
        _ = try store.load("c")
        try Self.slowCommit(failing: false, sql)
        let before = store.backendPID
        try store.write(try Self.commits("c", 1...2))
        #expect(store.backendPID != before, "the connection was closed and another made")
        #expect(store.clusterFigures().unknownOutcomes == { var u = ClusterFigures.UnknownOutcomes(); u.acked = 1; return u }())
        #expect(try store.load("c").log.map(\.seq) == [1, 2])
        try store.write(try Self.commits("c", 3...3))
        #expect(try sql("SELECT string_agg(seq::text, ',' ORDER BY seq) FROM oplog") == "1,2,3")
    }

    @Test("[rule 4] A commit that outlives the commit timeout and then fails is written again with the same seqs")
    func hungCommitRetried() throws {
        let (store, sql) = try Self.node()
        _ = try store.load("c")
        try Self.slowCommit(failing: true, sql)
        try store.write(try Self.commits("c", 1...2))
        #expect(store.clusterFigures().unknownOutcomes.retried == 1)
        #expect(try store.load("c").log.map(\.opID) == ["o1", "o2"])
    }

    @Test("[rule 4] When the log holds another commit at the batch's seq, the write fails and nothing is duplicated (the primary key's backstop)")
    func hungCommitOther() throws {
        let (store, sql) = try Self.node()
        _ = try store.load("c")
        try Self.slowCommit(failing: true, sql)
        let other = try Self.commits("c", 1...1)
        guard case .commit(let record) = other[0] else { return }
        let hex = record.op.loggedBytes.map { String(format: "%02x", $0) }.joined()
        // Another writer's seq 1, queued behind the hung transaction's (the key's lock), committed after it fails.
        let intruder = Thread {
            Thread.sleep(forTimeInterval: 0.5)
            _ = try? sql("INSERT INTO oplog (canvas, seq, client, op_id, op, fence) VALUES ('c', 1, 'c:other', 'x1', '\\x\(hex)'::bytea, 0)")
        }
        intruder.start()
        #expect(throws: UnknownCommitOutcome.self) { try store.write(try Self.commits("c", 1...2)) }
        #expect(store.clusterFigures().unknownOutcomes.reloaded == 1)
        #expect(try sql("SELECT string_agg(op_id, ',' ORDER BY seq) FROM oplog") == "x1")
    }

    @Test("[rule 3] A commit whose wait for synchronous replication is cancelled returns a warning: the store throws, and the next write neither loses nor duplicates it (fsync on)")
    func cancelledSynchronousReplication() throws {
        // A server of its own: this test turns synchronous replication on for the whole server. With fsync
        // on, as production runs.
        let server = try PostgresServer(fsync: true)
        defer { server.stop() }
        var options = PostgresStoreOptions()
        options.commitTimeout = .seconds(60)
        let store = try nodeStore(server.url, node: "a", options: options)
        _ = try store.load("c")
        try store.write(try Self.commits("c", 1...1))
        let pid = store.backendPID
        // A standby that does not exist: every commit waits for it, for ever.
        try server.superuser("CREATE TABLE probe (x int)")
        try server.superuser("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
        try server.superuser("SELECT pg_reload_conf()")
        try Self.waitUntilCommitsWait(server)

        let outcome = Locked<Result<Void, any Error>?>(nil)
        Thread { let r = Result { try store.write(try Self.commits("c", 2...2)) }; outcome.withLock { $0 = r } }.start()
        var cancelled = false
        for _ in 0..<1000 where !cancelled {
            if try server.superuser("SELECT wait_event FROM pg_stat_activity WHERE pid = \(pid)") == "SyncRep" {
                // What a careless operator or a pooler's query timeout does: the wait ends with a WARNING only.
                try server.superuser("SELECT pg_cancel_backend(\(pid))")
                cancelled = true
            } else {
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        #expect(cancelled, "the write's COMMIT never waited for the standby")
        for _ in 0..<1000 where outcome.withLock({ $0 }) == nil { Thread.sleep(forTimeInterval: 0.01) }
        guard case .failure(let error)? = outcome.withLock({ $0 }) else {
            Issue.record("the write returned \(String(describing: outcome.withLock { $0 })), not the failure of a commit that was not replicated")
            return
        }
        #expect((error as? PostgresError)?.kind == .notReplicated, "\(error)")

        try server.superuser("ALTER SYSTEM RESET synchronous_standby_names")
        try server.superuser("SELECT pg_reload_conf()")
        // Written again as it was, it is refused: seq 2 is in the log already (committed on the primary).
        #expect(throws: (any Error).self) { try store.write(try Self.commits("c", 2...2)) }
        // The server reloads the canvas (recovering), finds seq 2 once, and goes on from it.
        #expect(try store.load("c").log.map(\.seq) == [1, 2])
        try store.write(try Self.commits("c", 3...3))
        #expect(try store.load("c").log.map(\.seq) == [1, 2, 3])
    }

    /// Waits until a commit on `server` waits for the synchronous standby (the setting reached the
    /// backends and the checkpointer after the reload): a probe's COMMIT that does not return within
    /// 300 ms. Its session is closed, never cancelled; its backend waits until the setting goes.
    static func waitUntilCommitsWait(_ server: PostgresServer) throws {
        for _ in 0..<100 {
            let probe = try PostgresConnection(url: server.superuserURL)
            do {
                try probe.query("INSERT INTO probe VALUES (1)", timeout: .milliseconds(300))
            } catch let error as PostgresError where error.kind == .timedOut {
                return
            }
            probe.close()
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("commits never started waiting for the standby")
    }
}
