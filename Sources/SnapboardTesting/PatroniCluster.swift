import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A highly available PostgreSQL 15 on loopback, as Debian packages it: three etcd 3.4 members and three
/// Patroni 3.0 members, each with its own PostgreSQL, in one temporary directory. Patroni runs in strict
/// synchronous mode, so a commit returns only once a standby has it, and a standby is promoted only when it
/// has every commit that returned (`docs/operations.md`, "Database fail-over", says why each setting).
///
/// For tests and the chaos run: `start()` brings it up (about 10 s), `url` reaches the primary of the
/// moment, `kill` and `start(_:)` take members down and up, `stop()` (or the end of the value) stops every
/// process it started. PostgreSQL refuses to run as root, so Patroni runs as user `postgres` (`runuser`),
/// and the suite must run as root or as `postgres`.
public final class PatroniCluster: @unchecked Sendable {
    /// One Patroni member and its PostgreSQL.
    public struct Member: Hashable, Sendable, CustomStringConvertible {
        /// 0, 1 or 2: the member's place in `members` and in `url`'s host list.
        public let index: Int
        /// `pg1`, `pg2`, `pg3`: Patroni's name for it, and its standby's `application_name` on the primary.
        public let name: String
        /// PostgreSQL's TCP port on 127.0.0.1.
        public let port: Int
        /// Patroni's REST API port on 127.0.0.1 (`/primary`, `/cluster`, `/sync`).
        public let restPort: Int

        public var description: String { name }
    }

    /// Where a step of the cluster's life did not happen in time: what was awaited, and what was seen.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let members: [Member]
    /// The temporary directory that holds everything: `eN/` (etcd), `pgN/` (Patroni's config, log, pid
    /// file, socket and PostgreSQL's data), removed by `stop()` unless `SNAPBOARD_KEEP_PATRONI` is set.
    public let directory: URL
    /// The database and role created for Snapboard at start (the role owns the database).
    public let database = "snapboard"
    public let role = "snapboard"

    let etcdPorts: [(client: Int, peer: Int)]
    let scope: String
    let passwords: (superuser: String, replication: String, rewind: String, snapboard: String)
    let lock = NSLock()
    var etcd: [Process] = []
    private var patroni: [Int: Process] = [:]
    private var stopped = false

    static let binDirectory = "/usr/lib/postgresql/15/bin"

    /// Chooses free ports and makes the directory; starts nothing (`start()` does).
    public init() throws {
        var ports: Set<Int> = []
        while ports.count < 12 { ports.insert(try freeLoopbackPort()) }
        let chosen = Array(ports)
        etcdPorts = (0..<3).map { (chosen[$0], chosen[3 + $0]) }
        members = (0..<3).map { Member(index: $0, name: "pg\($0 + 1)", port: chosen[6 + $0], restPort: chosen[9 + $0]) }
        let token = String(UUID().uuidString.prefix(8)).lowercased()
        scope = "snapboard-\(token)"
        passwords = (Self.secret(), Self.secret(), Self.secret(), Self.secret())
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-patroni-\(getpid())-\(token)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // PostgreSQL, as user postgres, must be able to walk down to its own directory.
        chmod(directory.path, 0o755)
    }

    deinit { stop() }

    /// The libpq URL of whichever member is primary: all three hosts, `target_session_attrs=read-write`,
    /// `connect_timeout=2`, as role `snapboard` on database `snapboard`.
    public var url: String { url(first: members[0]) }

    /// `url` with `member` listed first and the others after it in order: libpq tries the hosts in that
    /// order, so a test can make a node meet a given member first (a zombie primary, say).
    public func url(first member: Member) -> String {
        let hosts = (0..<3).map { members[(member.index + $0) % 3] }.map { "127.0.0.1:\($0.port)" }.joined(separator: ",")
        return "postgresql://\(role):\(passwords.snapboard)@\(hosts)/\(database)?target_session_attrs=read-write&connect_timeout=2"
    }

    /// The URL of one member only, as role `snapboard` (no session attributes: reads on a standby too).
    public func url(of member: Member) -> String {
        "postgresql://\(role):\(passwords.snapboard)@127.0.0.1:\(member.port)/\(database)?connect_timeout=2"
    }

    // MARK: Starting and stopping

    /// Starts etcd and the three members; returns once a leader and a streaming synchronous standby exist,
    /// role and database `snapboard` are created (a write that committed on two members) and `url` takes a
    /// read-write session.
    public func start(timeout: Double = 60) throws {
        let deadline = Date().addingTimeInterval(timeout)
        try startEtcd()
        for member in members { try writeConfig(member) }
        try waitUntil(deadline, "a healthy etcd") {
            self.etcdPorts.allSatisfy { (try? Self.get(port: $0.client, "/health"))?.status == 200 }
        }
        for member in members { try start(member) }
        var leader: Member?
        try waitUntil(deadline, "a leader with a streaming synchronous standby") {
            leader = self.leader()
            guard let leader else { return false }
            return self.synchronousStandby(of: leader) != nil
        }
        let sql = "CREATE ROLE \(role) LOGIN PASSWORD '\(passwords.snapboard)' IN ROLE pg_monitor"
        _ = try superuser(leader!, sql, database: "postgres")
        _ = try superuser(leader!, "CREATE DATABASE \(database) OWNER \(role)", database: "postgres")
        try waitUntil(deadline, "a read-write session through the URL") {
            (try? Self.psql(self.url, "SELECT pg_is_in_recovery()")) == "f"
        }
    }

    /// Starts member `member`'s Patroni (after `kill`, or to bring a zombie primary back under Patroni,
    /// which then demotes it). Does not wait for it to be healthy (`waitHealthy`).
    public func start(_ member: Member) throws {
        let runner = Process()
        runner.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
        let home = directory.appendingPathComponent(member.name).path
        // `exec` makes the pid that the shell wrote Patroni's own; runuser stays as its parent.
        runner.arguments = ["-u", "postgres", "--", "sh", "-c", "echo $$ > \(home)/patroni.pid; exec patroni \(home)/patroni.yml"]
        let log = "\(home)/patroni.log"
        if !FileManager.default.fileExists(atPath: log) { _ = FileManager.default.createFile(atPath: log, contents: nil) }
        let handle = FileHandle(forWritingAtPath: log)
        handle?.seekToEndOfFile()
        runner.standardOutput = handle
        runner.standardError = handle
        runner.standardInput = FileHandle.nullDevice
        try? FileManager.default.removeItem(atPath: "\(home)/patroni.pid")
        try lock.withLock {
            if let old = patroni[member.index], old.isRunning { throw Failure(description: "\(member)'s Patroni is running") }
            try runner.run()
            patroni[member.index] = runner
        }
        // The pid file is the sign that Patroni, not the shell, runs now.
        let until = Date().addingTimeInterval(5)
        while patroniPID(member) == nil, Date() < until { usleep(20_000) }
    }

    /// Starts the Patroni of every member whose Patroni is not running (after a test that failed half-way).
    public func startStopped() throws {
        for member in members where patroniPID(member) == nil { try start(member) }
    }

    /// Stops everything it started: SIGTERM to each Patroni (which stops its PostgreSQL) and to a
    /// PostgreSQL left without its Patroni, then to etcd; whatever still runs after a few seconds gets
    /// SIGKILL. Removes the directory. Safe to call twice.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        for member in members {
            if let pid = patroniPID(member), Self.isAlive(pid) { Glibc.kill(pid, SIGTERM) }
            // A postmaster whose Patroni died (a zombie primary): fast shutdown.
            else if let pid = postmasterPID(member), Self.isAlive(pid) { Glibc.kill(pid, SIGINT) }
        }
        // Test data: what has not stopped in 5 s (a leader waiting on standbys that stop too) is killed.
        let deadline = Date().addingTimeInterval(5)
        func anyMemberAlive() -> Bool {
            members.contains { member in
                [patroniPID(member), postmasterPID(member)].contains { $0.map(Self.isAlive) == true }
            }
        }
        while anyMemberAlive(), Date() < deadline { usleep(50_000) }
        var killed: [pid_t] = []
        for member in members {
            for pid in [patroniPID(member), postmasterPID(member)].compactMap({ $0 }) where Self.isAlive(pid) {
                Glibc.kill(pid, SIGKILL)
                killed.append(pid)
            }
        }
        let killDeadline = Date().addingTimeInterval(3)
        while killed.contains(where: Self.isAlive), Date() < killDeadline { usleep(10_000) }
        let (etcdProcesses, processes) = lock.withLock { (etcd, etcd + Array(patroni.values)) }
        for process in etcdProcesses where process.isRunning { process.terminate() }
        let etcdDeadline = Date().addingTimeInterval(1)
        while processes.contains(where: \.isRunning), Date() < etcdDeadline { usleep(50_000) }
        for process in processes where process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        for process in processes { process.waitUntilExit() }
        // Backends of a postmaster killed above end on their own; anything left that names this cluster's
        // directory or scope (PostgreSQL titles its processes with the scope, Patroni's cluster_name) is ours.
        for pid in Self.processes(mentioning: directory.path) + Self.processes(mentioning: scope + ":") { Glibc.kill(pid, SIGKILL) }
        if ProcessInfo.processInfo.environment["SNAPBOARD_KEEP_PATRONI"] == nil {
            // Three data directories with their WAL take seconds to delete on a busy disk: the directory is
            // renamed at once and `rm` deletes it in the background.
            let doomed = directory.deletingLastPathComponent().appendingPathComponent(".deleted-" + directory.lastPathComponent)
            let remove = Process()
            remove.executableURL = URL(fileURLWithPath: "/bin/rm")
            remove.arguments = ["-rf", "--", doomed.path]
            remove.standardInput = FileHandle.nullDevice
            if rename(directory.path, doomed.path) != 0 || (try? remove.run()) == nil {
                try? FileManager.default.removeItem(at: directory)
            }
        }
    }

    // MARK: Faults

    /// SIGKILL to member `member`'s Patroni and, when `postmasterToo`, to its PostgreSQL's postmaster (from
    /// `postmaster.pid`). With Patroni alone killed, a primary's PostgreSQL lives on (Patroni daemonized it):
    /// the zombie primary. Returns once the killed processes are gone.
    public func kill(_ member: Member, postmasterToo: Bool = true) {
        let postmaster = postmasterPID(member)
        if let pid = patroniPID(member) { Glibc.kill(pid, SIGKILL) }
        if postmasterToo, let pid = postmaster { Glibc.kill(pid, SIGKILL) }
        let runner = lock.withLock { patroni[member.index] }
        runner?.waitUntilExit()
        if postmasterToo, let pid = postmaster {
            let deadline = Date().addingTimeInterval(5)
            while Self.isAlive(pid), Date() < deadline { usleep(10_000) }
        }
    }

    /// SIGKILL to member `member`'s postmaster only: its Patroni restarts PostgreSQL.
    public func killPostmaster(_ member: Member) {
        guard let pid = postmasterPID(member) else { return }
        Glibc.kill(pid, SIGKILL)
        let deadline = Date().addingTimeInterval(5)
        while Self.isAlive(pid), Date() < deadline { usleep(10_000) }
    }

    // MARK: What the cluster is doing

    /// The member whose Patroni says it is the primary (`GET /primary` answers 200), or nil. A member whose
    /// Patroni is dead answers nothing, whatever its PostgreSQL does.
    public func leader() -> Member? {
        members.first { (try? Self.get(port: $0.restPort, "/primary"))?.status == 200 }
    }

    /// Waits until a member other than `old` is the leader, and returns it.
    @discardableResult
    public func waitForNewLeader(otherThan old: Member, timeout: Double = 40) throws -> Member {
        var found: Member?
        try waitUntil(Date().addingTimeInterval(timeout), "a leader other than \(old)") {
            found = self.leader().flatMap { $0 == old ? nil : $0 }
            return found != nil
        }
        return found!
    }

    /// The standby that `leader` streams to synchronously right now (`pg_stat_replication`), or nil.
    public func synchronousStandby(of leader: Member) -> Member? {
        let sql = "SELECT application_name FROM pg_stat_replication WHERE state = 'streaming' AND sync_state = 'sync'"
        guard let name = try? superuser(leader, sql, database: "postgres") else { return nil }
        return members.first { $0.name == name.split(separator: "\n").first.map(String.init) }
    }

    /// Waits until all three members run under Patroni, one leads, one is its synchronous standby and
    /// every standby streams from it and has replayed all it received (after a rejoin: pg_rewind is done).
    public func waitHealthy(timeout: Double = 60) throws {
        try waitUntil(Date().addingTimeInterval(timeout), "all three members healthy, standbys streaming and caught up") {
            guard let leader = self.leader(),
                  self.members.allSatisfy({ (try? Self.get(port: $0.restPort, "/health"))?.status == 200 }) else { return false }
            let sql = """
                SELECT count(*) FILTER (WHERE state = 'streaming'), count(*) FILTER (WHERE sync_state = 'sync'),
                       count(*) FILTER (WHERE replay_lsn = pg_current_wal_lsn()) FROM pg_stat_replication
                """
            guard (try? self.superuser(leader, sql, database: "postgres")) == "2|1|2",
                  let standby = self.synchronousStandby(of: leader) else { return false }
            // Patroni names the synchronous standby in etcd only after PostgreSQL streams to it synchronously,
            // and only the member named there may be promoted: until it is, a leader's death leaves nobody
            // to take over.
            return self.synchronousStandbyInEtcd(askingOf: leader) == standby
        }
    }

    /// The member Patroni's `/cluster` (as `asked` serves it) calls `sync_standby`, or nil.
    public func synchronousStandbyInEtcd(askingOf asked: Member) -> Member? {
        guard let body = try? Self.get(port: asked.restPort, "/cluster").body,
              let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let list = json["members"] as? [[String: Any]] else { return nil }
        let name = list.first { $0["role"] as? String == "sync_standby" }?["name"] as? String
        return members.first { $0.name == name }
    }

    /// Runs `sql` on member `member` as the superuser, over its own unix socket (which reaches a standby, or
    /// a zombie primary, too), in `database` (Snapboard's by default); returns psql's unaligned output,
    /// fields split by `|`, without the trailing newline.
    @discardableResult
    public func superuser(_ member: Member, _ sql: String, database: String? = nil) throws -> String {
        let socket = directory.appendingPathComponent("\(member.name)/socket").path
        return try Self.psql("host=\(socket) port=\(member.port) user=postgres dbname=\(database ?? self.database) connect_timeout=2", sql)
    }

    /// The tail of member `member`'s Patroni log (PostgreSQL's log lines are in it too), for a failure's report.
    public func logTail(_ member: Member, lines: Int = 30) -> String {
        let text = (try? String(contentsOf: directory.appendingPathComponent("\(member.name)/patroni.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Every process of the cluster that runs now: etcd, the `runuser` wrappers, Patroni, the postmasters.
    public var processIDs: [pid_t] {
        let started = lock.withLock { (etcd + Array(patroni.values)).filter(\.isRunning).map(\.processIdentifier) }
        return started + members.flatMap { [patroniPID($0), postmasterPID($0)] }.compactMap { $0 }
    }

    /// Patroni's pid, from the pid file its shell wrote before exec, while that process lives.
    public func patroniPID(_ member: Member) -> pid_t? {
        let file = directory.appendingPathComponent("\(member.name)/patroni.pid").path
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1, Self.isAlive(pid) else { return nil }
        return pid
    }

    /// The postmaster's pid, from line 1 of `postmaster.pid`, while that process lives.
    public func postmasterPID(_ member: Member) -> pid_t? {
        let file = directory.appendingPathComponent("\(member.name)/data/postmaster.pid").path
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
              let line = text.split(separator: "\n").first, let pid = pid_t(line.trimmingCharacters(in: .whitespaces)), pid > 1,
              Self.isAlive(pid) else { return nil }
        return pid
    }
}
