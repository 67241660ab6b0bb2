import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL (Debian's postgresql-15) for tests: a fresh cluster in a temp dir, on a free loopback
/// port, its unix socket in the temp dir, with a password-authenticated role for the nodes and a database
/// it owns. PostgreSQL refuses to run as root, so when the tests run as root it runs as user `postgres`
/// (`runuser`), and the temp dir is made traversable and handed to that user.
///
/// `fsync: false` (and no full-page writes) makes start-up and commits fast, for tests of the store's
/// contract, which does not depend on what reaches the disk; commit-latency figures and the tests of
/// commit outcomes use a server with fsync on.
public final class PostgresServer: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Debian's PostgreSQL binaries.
    public static let bin = URL(fileURLWithPath: "/usr/lib/postgresql/15/bin")

    public let directory: URL
    public let port: Int
    public let role = "snapboard"
    public let password: String
    public let database = "snapboard"
    private var stopped = false

    /// The nodes' URL: the role, its password, loopback TCP.
    public var url: String { url(database: database) }

    /// The nodes' URL for another database of this server (`createDatabase`).
    public func url(database: String) -> String { "postgresql://\(role):\(password)@127.0.0.1:\(port)/\(database)" }

    /// The superuser over the unix socket (trust), for what tests do behind the store's back.
    public var superuserURL: String { "host=\(socketDirectory) port=\(port) user=postgres dbname=\(database)" }

    var socketDirectory: String { directory.path }
    var dataDirectory: String { directory.appendingPathComponent("data").path }
    public var logFile: String { directory.appendingPathComponent("postgres.log").path }

    /// Makes and starts the server: `initdb`, settings, `pg_ctl start` on a free port (another port when
    /// the one found is taken by the time it binds), then the role and its database. `settings` go into
    /// `postgresql.conf` as they are.
    public init(fsync: Bool = true, settings: [String: String] = [:]) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        directory = base
        password = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        var chosen = 0
        do {
            chmod(base.path, 0o755)
            try Self.handOver(base.path)
            let pwfile = base.appendingPathComponent("pw").path
            try "\(UUID().uuidString)\n".write(toFile: pwfile, atomically: true, encoding: .utf8)
            try Self.handOver(pwfile)
            try Self.run(Self.bin.appendingPathComponent("initdb"), [
                "-D", base.appendingPathComponent("data").path, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256",
                "-E", "UTF8", "--locale=C.UTF-8", "--no-sync", "--pwfile=\(pwfile)",
            ], asPostgres: true)
            // The superuser logs in over the socket (trust); its password is never used.
            try? FileManager.default.removeItem(atPath: pwfile)
            var conf = [
                "listen_addresses": "'127.0.0.1'",
                "unix_socket_directories": "'\(base.path)'",
                "fsync": fsync ? "on" : "off",
                "full_page_writes": fsync ? "on" : "off",
                "synchronous_commit": "on",
                "shared_buffers": "'32MB'",
                "max_connections": "200",
                "logging_collector": "off",
                "log_min_messages": "warning",
            ]
            conf.merge(settings) { $1 }
            let text = conf.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)\n" }.joined()
            let confFile = base.appendingPathComponent("data/postgresql.auto.conf").path
            let existing = (try? String(contentsOfFile: confFile, encoding: .utf8)) ?? ""
            // postgresql.auto.conf is read last, so these win; ALTER SYSTEM rewrites it keeping them.
            try (existing + text).write(toFile: confFile, atomically: false, encoding: .utf8)
            var lastError: (any Error)?
            for _ in 0..<5 {
                chosen = try freeLoopbackPort()
                do {
                    try Self.run(Self.bin.appendingPathComponent("pg_ctl"), [
                        "-D", base.appendingPathComponent("data").path, "-l", base.appendingPathComponent("postgres.log").path,
                        "-o", "-p \(chosen)", "-w", "-t", "30", "start",
                    ], asPostgres: true)
                    lastError = nil
                    break
                } catch {
                    lastError = error
                }
            }
            if let lastError { throw lastError }
        } catch {
            try? FileManager.default.removeItem(at: base)
            throw error
        }
        port = chosen
        do {
            try superuser("CREATE ROLE \(role) LOGIN PASSWORD '\(password)'", database: "postgres")
            // pg_monitor: the lag columns of pg_stat_replication, for the replication-lag figure.
            try superuser("GRANT pg_monitor TO \(role)", database: "postgres")
            try superuser("CREATE DATABASE \(database) OWNER \(role)", database: "postgres")
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// A new empty database owned by the nodes' role; returns its name (`url(database:)` reaches it).
    @discardableResult
    public func createDatabase(_ name: String = "t\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))") throws -> String {
        try superuser("CREATE DATABASE \(name) OWNER \(role)", database: "postgres")
        return name
    }

    /// Runs `sql` as the superuser over the unix socket in `database` (Snapboard's by default) with psql;
    /// returns its unaligned output, fields split by `|`, without the trailing newline.
    @discardableResult
    public func superuser(_ sql: String, database: String? = nil) throws -> String {
        let (status, output) = try Self.capture(URL(fileURLWithPath: "/usr/bin/psql"), [
            "host=\(socketDirectory) port=\(port) user=postgres dbname=\(database ?? self.database) connect_timeout=5",
            "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql,
        ])
        guard status == 0 else { throw Failure(description: "psql failed (\(status)) on \(sql.prefix(200)): \(output)") }
        return output.hasSuffix("\n") ? String(output.dropLast()) : output
    }

    /// The postmaster's pid, from line 1 of `postmaster.pid`, while it lives.
    public var postmasterPID: pid_t? {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
              let line = text.split(separator: "\n").first, let pid = pid_t(line.trimmingCharacters(in: .whitespaces)), pid > 1,
              Glibc.kill(pid, 0) == 0 else { return nil }
        return pid
    }

    /// Sends `signal` to the postmaster (SIGKILL: a crash; its backends exit at once).
    public func kill(_ signal: Int32 = SIGKILL) {
        if let pid = postmasterPID { _ = Glibc.kill(pid, signal) }
    }

    /// Starts the server again after `stop(removing: false)` or a kill, on the same port and data.
    public func restart() throws {
        stopped = false
        try Self.run(Self.bin.appendingPathComponent("pg_ctl"), [
            "-D", dataDirectory, "-l", logFile, "-o", "-p \(port)", "-w", "-t", "30", "start",
        ], asPostgres: true)
    }

    /// Stops the server (fast shutdown: sessions end, open transactions roll back), then removes its
    /// directory unless `removing` is false. Idempotent.
    public func stop(removing: Bool = true) {
        if !stopped {
            stopped = true
            if postmasterPID != nil {
                _ = try? Self.run(Self.bin.appendingPathComponent("pg_ctl"), ["-D", dataDirectory, "-m", "immediate", "-w", "-t", "30", "stop"],
                                  asPostgres: true)
            }
            if let pid = postmasterPID { _ = Glibc.kill(pid, SIGKILL) }
        }
        if removing { try? FileManager.default.removeItem(at: directory) }
    }

    /// The tail of the server's log, for a failure's report.
    public func logTail(lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    // MARK: Helpers


    static var runningAsRoot: Bool { geteuid() == 0 }

    /// Gives `path` to user postgres when running as root (PostgreSQL refuses to run as root).
    static func handOver(_ path: String) throws {
        guard runningAsRoot else { return }
        guard let user = getpwnam("postgres") else { throw Failure(description: "no user postgres (apt-get install postgresql-15)") }
        guard chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else { throw Failure(description: "chown \(path): errno \(errno)") }
    }

    /// Runs a PostgreSQL program to completion (as user postgres when running as root); throws with its
    /// output when it fails.
    static func run(_ program: URL, _ arguments: [String], asPostgres: Bool) throws {
        let (executable, all) = asPostgres && runningAsRoot
            ? (URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", program.path] + arguments)
            : (program, arguments)
        let (status, output) = try capture(executable, all)
        guard status == 0 else { throw Failure(description: "\(program.lastPathComponent) failed (\(status)): \(output)") }
    }

    /// Runs `executable` to completion and returns its status and output (standard output and error, through
    /// a file). Not Foundation's `Process`: it hands the child one end of a socket pair and waits for that
    /// to close, and the postmaster `pg_ctl start` leaves behind inherits it and lives on, so the wait never
    /// ends. This spawns with every descriptor above 2 closed and waits for the pid itself.
    static func capture(_ executable: URL, _ arguments: [String]) throws -> (Int32, String) {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-pg-out-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module does not declare.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw Failure(description: "this glibc has no posix_spawn_file_actions_addclosefrom_np (2.34 or later is needed)")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure(description: "cannot run \(executable.path): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "waitpid: errno \(errno)") }
        }
        let output = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS, which Swift does not import (macros).
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), output)
    }

    /// Ends the server from an `atexit` handler, where nothing may wait on Dispatch: an immediate shutdown
    /// (SIGQUIT), a short wait for the postmaster to go, then its directory is removed.
    public func stopAtExit() {
        if !stopped, let pid = postmasterPID {
            stopped = true
            _ = Glibc.kill(pid, SIGQUIT)
            for _ in 0..<100 where Glibc.kill(pid, 0) == 0 { usleep(20_000) }
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
