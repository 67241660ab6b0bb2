import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing the members' configuration, starting etcd, and the processes, ports and HTTP the cluster is
/// driven through.
extension PatroniCluster {
    // MARK: Set-up

    func startEtcd() throws {
        let initial = etcdPorts.enumerated().map { "e\($0.offset + 1)=http://127.0.0.1:\($0.element.peer)" }.joined(separator: ",")
        for (i, ports) in etcdPorts.enumerated() {
            let name = "e\(i + 1)"
            let home = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/etcd")
            process.arguments = [
                "--name", name, "--data-dir", home.appendingPathComponent("data").path,
                "--listen-client-urls", "http://127.0.0.1:\(ports.client)", "--advertise-client-urls", "http://127.0.0.1:\(ports.client)",
                "--listen-peer-urls", "http://127.0.0.1:\(ports.peer)", "--initial-advertise-peer-urls", "http://127.0.0.1:\(ports.peer)",
                "--initial-cluster", initial, "--initial-cluster-state", "new", "--initial-cluster-token", scope,
                // Loopback: a leader is lost within a second, well inside Patroni's retry_timeout.
                "--heartbeat-interval", "100", "--election-timeout", "1000", "--log-level", "warn",
            ]
            let log = home.appendingPathComponent("etcd.log").path
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let handle = FileHandle(forWritingAtPath: log)
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
            lock.withLock { etcd.append(process) }
        }
    }

    /// Writes member `member`'s `patroni.yml` and makes its directory postgres's.
    func writeConfig(_ member: Member) throws {
        let home = directory.appendingPathComponent(member.name)
        let socket = home.appendingPathComponent("socket")
        try FileManager.default.createDirectory(at: socket, withIntermediateDirectories: true)
        let hosts = etcdPorts.map { "127.0.0.1:\($0.client)" }.joined(separator: ",")
        // Why each setting: docs/operations.md, "Database fail-over".
        let config = """
            scope: \(scope)
            namespace: /snapboard/
            name: \(member.name)
            log:
              level: WARNING
            restapi:
              listen: 127.0.0.1:\(member.restPort)
              connect_address: 127.0.0.1:\(member.restPort)
            etcd3:
              hosts: \(hosts)
            bootstrap:
              dcs:
                ttl: 10
                loop_wait: 1
                retry_timeout: 4
                synchronous_mode: true
                synchronous_mode_strict: true
                postgresql:
                  use_pg_rewind: true
                  use_slots: false
                  parameters:
                    synchronous_commit: "on"
                    wal_keep_size: 128MB
                    wal_retrieve_retry_interval: 500ms
                    max_connections: 50
              initdb:
                - encoding: UTF8
                - locale: C.UTF-8
                - data-checksums
            postgresql:
              listen: 127.0.0.1:\(member.port)
              connect_address: 127.0.0.1:\(member.port)
              data_dir: \(home.appendingPathComponent("data").path)
              bin_dir: \(Self.binDirectory)
              pgpass: \(home.appendingPathComponent("pgpass").path)
              use_pg_rewind: true
              authentication:
                superuser:
                  username: postgres
                  password: \(passwords.superuser)
                replication:
                  username: replicator
                  password: \(passwords.replication)
                rewind:
                  username: rewinder
                  password: \(passwords.rewind)
              parameters:
                unix_socket_directories: \(socket.path)
                shared_buffers: 32MB
              pg_hba:
                - local all all trust
                - host replication replicator 127.0.0.1/32 scram-sha-256
                - host all all 127.0.0.1/32 scram-sha-256

            """
        let file = home.appendingPathComponent("patroni.yml")
        try config.write(to: file, atomically: true, encoding: .utf8)
        guard let user = getpwnam("postgres") else { throw Failure(description: "no user postgres (apt install postgresql-15)") }
        for path in [home.path, socket.path, file.path] {
            guard chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw Failure(description: "chown postgres \(path): \(String(cString: strerror(errno))) (run as root)")
            }
        }
        chmod(file.path, 0o600)
    }

    func waitUntil(_ deadline: Date, _ what: String, _ condition: () -> Bool) throws {
        while Date() < deadline {
            if condition() { return }
            usleep(100_000)
        }
        let states = members.map { member in
            let cluster = (try? Self.get(port: member.restPort, "/cluster"))?.body ?? "no answer"
            return "\(member): \(cluster.prefix(600))"
        }
        throw Failure(description: "not in time: \(what)\n" + states.joined(separator: "\n"))
    }

    // MARK: Processes, ports, HTTP

    /// Runs psql 15 with `conninfo` and one statement; its unaligned, tuples-only output.
    static func psql(_ conninfo: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(binDirectory)/psql")
        process.arguments = ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", conninfo, "-c", sql]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let problem = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "psql: \(String(decoding: problem, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A GET over a socket of its own, HTTP/1.0 as Patroni's and etcd's servers speak it, within 2 s.
    static func get(port: Int, _ path: String) throws -> (status: Int, body: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect \(port)") }
        let request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            bytes += buffer[0..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let words = text.prefix(while: { $0 != "\r" }).split(separator: " ")
        guard words.count >= 2, let status = Int(words[1]), (100...599).contains(status) else {
            throw Failure(description: "no HTTP answer on port \(port)")
        }
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, body)
    }


    static func secret() -> String {
        (0..<24).map { _ in String(UInt8.random(in: 0...15), radix: 16) }.joined()
    }

    /// Alive and not a zombie waiting to be reaped.
    public static func isAlive(_ pid: pid_t) -> Bool {
        guard Glibc.kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    /// Processes whose command line contains `text`.
    static func processes(mentioning text: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard pid != getpid(), let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self).contains(text)
        }
    }
}
