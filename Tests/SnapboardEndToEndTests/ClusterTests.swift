import Foundation
import SnapboardLWSClient
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

/// HAProxy from Debian, started on `deploy/haproxy.cfg` itself with the node addresses in its environment.
final class ProxyProcess {
    let process = Process()
    let port: Int
    /// HAProxy's stats page and Prometheus exporter (`/stats`, `/metrics`).
    let statsPort: Int

    /// Nodes on loopback ports.
    convenience init(nodes: [Int], port: Int? = nil) throws {
        try self.init(addresses: nodes.map { "127.0.0.1:\($0)" }, port: port)
    }

    /// Nodes at `host:port` addresses. With fewer than three, the `server` and `use-server` lines of the
    /// missing ones are left out of a copy of the file.
    init(addresses: [String], port: Int? = nil) throws {
        self.port = try port ?? freeLoopbackPort()
        var config = packageRoot.appendingPathComponent("deploy/haproxy.cfg").path
        if addresses.count < 3 {
            let lines = try String(contentsOfFile: config, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            let kept = lines.filter { line in
                let words = line.split(separator: " ")
                guard let first = words.first, first == "server" || first == "use-server", words.count > 1,
                      let k = Int(words[1].dropFirst(4)) else { return true }
                return k <= addresses.count
            }
            config = FileManager.default.temporaryDirectory.appendingPathComponent("haproxy-\(UUID().uuidString).cfg").path
            try kept.joined(separator: "\n").write(toFile: config, atomically: true, encoding: .utf8)
        }
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/haproxy")
        process.arguments = ["-db", "-f", config]
        var environment = ProcessInfo.processInfo.environment
        environment["SNAPBOARD_PROXY_BIND"] = "127.0.0.1:\(self.port)"
        statsPort = try freeLoopbackPort()
        environment["SNAPBOARD_STATS_BIND"] = "127.0.0.1:\(statsPort)"
        for (i, node) in addresses.enumerated() { environment["SNAPBOARD_NODE\(i + 1)"] = node }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let port = self.port
        try waitFor { (try? httpGet(port: port, "/healthz").status) == 200 }
    }

    /// Stops HAProxy and waits for it, freeing its port.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// The state HAProxy's health checks give each node ("UP", "DOWN", …), from its stats CSV.
    func nodeStates() -> [String: String] {
        guard let csv = try? httpGet(port: statsPort, "/stats;csv").body else { return [:] }
        var states: [String: String] = [:]
        for line in csv.split(separator: "\n") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            if fields.count > 17, fields[0] == "nodes", fields[1].hasPrefix("node") { states[String(fields[1])] = String(fields[17]) }
        }
        return states
    }

    deinit { stop() }
}

/// Shell commands the cluster tests need to succeed (ip, psql): their output, or a failure that says which.
@discardableResult
func must(_ command: String, _ arguments: [String]) throws -> String {
    let result = try runCommand(URL(fileURLWithPath: command), arguments, withErrors: true)
    guard result.status == 0 else { throw ServerStartError(output: "\(command) \(arguments.joined(separator: " ")): \(result.output)") }
    return result.output
}

/// Network namespaces for the nodes, each joined to the host by two veth pairs: one the node reaches the
/// database over, one HAProxy reaches the node over. Taking one link down cuts the node off from the
/// database only, or from the proxy only. Needs root and `ip` (iproute2); a failure says what failed.
final class NodeNetworks {
    let tag: String
    let count: Int
    private(set) var made: [String] = []

    init(count: Int) throws {
        tag = String(format: "%04x", UInt32(getpid() & 0xFFFF) ^ UInt32.random(in: 0...0xFFFF))
        self.count = count
        do {
            for k in 1...count {
                let ns = namespace(k)
                try must("/usr/sbin/ip", ["netns", "add", ns])
                made.append(ns)
                try must("/usr/sbin/ip", ["-n", ns, "link", "set", "lo", "up"])
                for (link, subnet) in [("d", databaseSubnet), ("p", proxySubnet)] {
                    let outside = "sb\(tag)\(link)\(k)h", inside = "sb\(tag)\(link)\(k)n"
                    try must("/usr/sbin/ip", ["link", "add", outside, "type", "veth", "peer", "name", inside])
                    try must("/usr/sbin/ip", ["link", "set", inside, "netns", ns])
                    try must("/usr/sbin/ip", ["addr", "add", "\(subnet).\(k).1/24", "dev", outside])
                    try must("/usr/sbin/ip", ["link", "set", outside, "up"])
                    try must("/usr/sbin/ip", ["-n", ns, "addr", "add", "\(subnet).\(k).2/24", "dev", inside])
                    try must("/usr/sbin/ip", ["-n", ns, "link", "set", inside, "up"])
                }
            }
        } catch {
            remove()
            throw error
        }
    }

    /// 10.231.K.1 is the host's end of node K's database link, 10.231.K.2 the node's; 10.232.K.x the proxy's.
    let databaseSubnet = "10.231"
    let proxySubnet = "10.232"

    func namespace(_ k: Int) -> String { "sb\(tag)n\(k)" }
    /// Where node K reaches the database (the host's end of its database link).
    func databaseAddress(_ k: Int) -> String { "\(databaseSubnet).\(k).1" }
    /// Where HAProxy reaches node K.
    func nodeAddress(_ k: Int) -> String { "\(proxySubnet).\(k).2" }

    /// Takes node K's database link down (`false`) or up again.
    func database(_ k: Int, up: Bool) throws { try must("/usr/sbin/ip", ["link", "set", "sb\(tag)d\(k)h", up ? "up" : "down"]) }
    /// Takes node K's proxy link down or up.
    func proxy(_ k: Int, up: Bool) throws { try must("/usr/sbin/ip", ["link", "set", "sb\(tag)p\(k)h", up ? "up" : "down"]) }

    func remove() {
        // Deleting a namespace deletes the veth ends in it, and with them their peers.
        for ns in made { _ = try? runCommand(URL(fileURLWithPath: "/usr/sbin/ip"), ["netns", "del", ns], withErrors: true) }
        made = []
    }

    deinit { remove() }
}

extension PostgresServer {
    /// The nodes' URL as a node at `host`'s side of its link reaches the server.
    func url(host: String) -> String { "postgresql://\(role):\(password)@\(host):\(port)/\(database)?connect_timeout=2" }

    /// `sql` as the nodes' role, rows as psql's unaligned output (fields split by |).
    func query(_ sql: String) throws -> String {
        try must("\(Self.bin.path)/psql", [url, "-X", "-At", "-F", "|", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }
}

/// Three `snapboard-server` nodes sharing one PostgreSQL, behind HAProxy on `deploy/haproxy.cfg`; each node
/// advertises the proxy's `/n/nodeK` prefix. Node K is `nodes[K-1]`, with id `nodeK`, on a fixed port so it
/// can be restarted in place. With `isolated`, each node runs in a network namespace of its own
/// (`NodeNetworks`), so a test can cut it off from the database or the proxy.
final class Cluster {
    let database: PostgresServer
    let proxyPort: Int
    let ports: [Int]
    let lease: Int
    let networks: NodeNetworks?
    private(set) var nodes: [ServerProcess?]
    private(set) var proxy: ProxyProcess!
    let logs: URL
    private var starts = 0

    init(lease: Int = 5, isolated: Bool = false, extraArguments: [String] = []) throws {
        self.lease = lease
        self.extraArguments = extraArguments
        // The namespaces first: PostgreSQL listens on the host's ends of their database links too.
        let networks = isolated ? try NodeNetworks(count: 3) : nil
        self.networks = networks
        let listen = ["127.0.0.1"] + (networks.map { n in (1...3).map { n.databaseAddress($0) } } ?? [])
        database = try PostgresServer(fsync: false, settings: ["listen_addresses": "'\(listen.joined(separator: ","))'"])
        if let networks {
            let hba = database.directory.appendingPathComponent("data/pg_hba.conf")
            let handle = try FileHandle(forWritingTo: hba)
            handle.seekToEndOfFile()
            handle.write(Data("host all all \(networks.databaseSubnet).0.0/16 scram-sha-256\n".utf8))
            try handle.close()
            _ = try database.superuser("SELECT pg_reload_conf()")
        }
        proxyPort = try freeLoopbackPort()
        var chosen: Set<Int> = []
        while chosen.count < 3 { chosen.insert(try freeLoopbackPort()) }
        ports = Array(chosen)
        logs = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        nodes = [nil, nil, nil]
        for k in 1...3 { try start(k) }
        let addresses = (1...3).map { k in "\(networks?.nodeAddress(k) ?? "127.0.0.1"):\(ports[k - 1])" }
        proxy = try ProxyProcess(addresses: addresses, port: proxyPort)
        try waitFor(10) { self.proxy.nodeStates().values.filter { $0 == "UP" }.count == 3 }
    }

    private let extraArguments: [String]

    /// Starts node K (again), on its own port.
    func start(_ k: Int) throws {
        starts += 1
        let host = networks?.databaseAddress(k) ?? "127.0.0.1"
        var arguments = ["--port", "\(ports[k - 1])", "--database-url", database.url(host: host), "--node-id", "node\(k)",
                         "--advertise-url", "http://127.0.0.1:\(proxyPort)/n/node\(k)", "--lease-seconds", "\(lease)",
                         // The checker reads the whole op log: checkpoints must not prune it.
                         "--keep-whole-log"] + extraArguments
        var launcher: [String] = []
        if let networks {
            arguments += ["--host", "0.0.0.0", "--insecure-open"]
            launcher = ["/usr/sbin/ip", "netns", "exec", networks.namespace(k)]
        }
        let log = logs.appendingPathComponent("node\(k)-\(starts).log").path
        do {
            nodes[k - 1] = try ServerProcess(arguments, errorLog: log, launcher: launcher)
        } catch {
            throw ServerStartError(output: "node\(k) did not start: \(error): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
    }

    func pid(_ k: Int) -> pid_t { nodes[k - 1]?.process.processIdentifier ?? 0 }

    /// SIGKILL to node K, waited for.
    func kill(_ k: Int) {
        guard let node = nodes[k - 1], node.isRunning else { return }
        Glibc.kill(node.process.processIdentifier, SIGKILL)
        node.process.waitUntilExit()
        nodes[k - 1] = nil
    }

    func pause(_ k: Int) { Glibc.kill(pid(k), SIGSTOP) }
    func resume(_ k: Int) { Glibc.kill(pid(k), SIGCONT) }

    /// Each canvas's owner (a node id), from the cluster listing (through the proxy, so from any live node).
    func owners() throws -> [String: String] {
        let listing = try JSONValue.parse(Array(try httpGet(port: proxyPort, "/v1/canvases?limit=1000").body.utf8))
        guard case .array(let items)? = listing["canvases"] else { return [:] }
        var owners: [String: String] = [:]
        for item in items { if case .string(let id)? = item["id"], case .string(let owner)? = item["owner"] { owners[id] = owner } }
        return owners
    }

    /// The op log, as the checker reads it. The store keeps a client's own id as `c:<id>` (a session without
    /// one is logged otherwise): the checker compares the id the client gave.
    func oplog() throws -> [AckChecker.Row] {
        try AckChecker.Row.parse(psql: try database.query(
            "SELECT canvas, seq, regexp_replace(client, '^c:', ''), op_id, fence FROM oplog ORDER BY canvas, seq"))
    }

    /// The op log checked against `load`'s acks, printed; and every client's replica against the canvas
    /// as the cluster serves it now (a replay of the log), where the replica has seen its last seq.
    func check(_ load: ClusterLoad, _ what: String) throws -> AckChecker.Report {
        let rows = try oplog()
        let report = AckChecker.check(clients: load.clients, log: rows)
        print("\(what): \(report)\n\(what): \(load.summary)")
        if !report.reorders.isEmpty {
            func logged(_ client: String, _ op: String) -> String {
                rows.filter { $0.client == client && $0.opID == op }.map { "#\($0.seq) fence \($0.fence.map(String.init) ?? "-")" }.joined(separator: ", ")
            }
            for pair in report.reorders {
                print("\(what): reordered \(pair.client): \(pair.earlier) [\(load.trail(client: pair.client, op: pair.earlier).joined(separator: ", "))] logged "
                      + "\(logged(pair.client, pair.earlier)); \(pair.later) [\(load.trail(client: pair.client, op: pair.later).joined(separator: ", "))] logged "
                      + "\(logged(pair.client, pair.later))")
            }
        }
        var compared = 0, behind = 0
        for canvas in load.canvases {
            // Through the proxy, following the 307 to the owner as a client would.
            let body = try must("/usr/bin/curl", ["-sfL", "--max-redirs", "3", "http://127.0.0.1:\(proxyPort)/v1/canvases/\(canvas)"])
            guard case .number(let seq)? = try JSONValue.parse(Array(body.utf8))["seq"] else {
                Issue.record("\(what): GET \(canvas) has no seq: \(body.prefix(200))")
                continue
            }
            let truth = try Replica.shapes(ofSnapshot: body)
            for (client, c, replica) in load.replicas where c == canvas {
                guard replica.seq == Int(seq) else {
                    behind += 1
                    continue
                }
                compared += 1
                #expect(replica.shapes == truth, "\(what): \(client)'s replica of \(canvas) at seq \(replica.seq) differs from the canvas")
            }
        }
        print("\(what): \(compared) replicas equal the canvas at its last seq (\(behind) had not seen it)")
        #expect(compared > 0)
        return report
    }

    /// The last lines of every node's standard error, for a failure message.
    func logTail(lines: Int = 15) -> String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: logs.path).sorted()) ?? []
        return files.map { name in
            let text = (try? String(contentsOfFile: logs.appendingPathComponent(name).path, encoding: .utf8)) ?? ""
            return "--- \(name)\n" + text.split(separator: "\n").suffix(lines).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// `snapboard_cluster_*` lines of node K's /metrics.
    func clusterMetrics(_ k: Int) -> String {
        let host = networks?.nodeAddress(k) ?? "127.0.0.1"
        guard let body = try? SnapboardLWSClient.httpGet(host: host, port: ports[k - 1], "/metrics", timeout: 2).body else { return "" }
        return String(decoding: body, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("snapboard_cluster_") }.joined(separator: "\n")
    }

    /// A `snapboard_cluster_*` figure of node K (summed over labels), or nil when not exported.
    func clusterFigure(_ k: Int, _ name: String) -> Double? {
        let lines = clusterMetrics(k).split(separator: "\n").filter { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
        guard !lines.isEmpty else { return nil }
        return lines.compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
    }

    func stop() {
        proxy?.stop()
        for k in 1...3 { kill(k) }
        networks?.remove()
        try? FileManager.default.removeItem(at: logs)
    }

    deinit { stop() }
}

/// Percentile `p` (0…1) of `values`, nearest rank; 0 for none.
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
}

extension Duration {
    var asSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

extension EndToEnd {
    @Suite("A cluster of three nodes on PostgreSQL behind HAProxy", .serialized)
    struct ClusterTests {
        @Test("The node that owns the most canvases is killed: every one of its canvases is served again within 5 s, and no acked op is lost, duplicated, misplaced or reordered")
        func nodeDeath() throws {
            let cluster = try Cluster(lease: 5)
            let canvases = (0..<12).map { "death-\($0)" }
            let load = ClusterLoad(port: cluster.proxyPort, canvases: canvases, clientsPerCanvas: 2, period: 0.05)
            load.start()
            try waitFor(15) { Set(load.acks.map(\.canvas)).count == canvases.count }
            Thread.sleep(forTimeInterval: 1)
            let owners = try cluster.owners()
            let counts = Dictionary(grouping: canvases, by: { owners[$0] ?? "none" }).mapValues(\.count)
            print("node death: owners before \(counts.sorted { $0.key < $1.key })")
            #expect(canvases.allSatisfy { owners[$0] != nil }, "\(owners)")
            let victimID = try #require(counts.filter { $0.key != "none" }.max { $0.value < $1.value }?.key, "no canvas has an owner: \(owners)")
            let victim = try #require(Int(victimID.dropFirst(4)))
            let theirs = canvases.filter { owners[$0] == victimID }
            let killed = ContinuousClock.now
            cluster.kill(victim)
            // Every canvas of the dead node acks again on another; from the kill to its first ack there.
            try waitFor(20) { theirs.allSatisfy { load.firstAck(on: $0, after: killed + .milliseconds(50)) != nil } }
            let recovery = theirs.map { (load.firstAck(on: $0, after: killed + .milliseconds(50))! - killed).asSeconds }
            print("node death: \(theirs.count) canvases of \(victimID) served again after p50 \(percentile(recovery, 0.5)) s, max \(recovery.max()!) s")
            #expect(recovery.max()! < 5, "\(recovery)")
            let after = try cluster.owners()
            #expect(theirs.allSatisfy { after[$0] != nil && after[$0] != victimID }, "\(after)")
            // Back later on its port: it takes canvases only as the proxy's hash and the leases allow.
            Thread.sleep(forTimeInterval: 1)
            try cluster.start(victim)
            try waitFor(10) { cluster.proxy.nodeStates()["node\(victim)"] == "UP" }
            let acked = load.ackCount
            try waitFor(10) { load.ackCount > acked + 50 }
            load.stop()
            #expect(load.unanswered == 0, "\(load.summary)")
            let report = try cluster.check(load, "node death")
            #expect(report.isClean && report.acked > 100, "\(report)\n\(cluster.logTail())")
        }
    }
}
