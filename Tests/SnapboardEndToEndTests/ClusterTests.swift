import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

/// A free TCP port on loopback, for a program that cannot be told to pick one (HAProxy).
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw ServerStartError(output: "no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// HAProxy from Debian, started on `deploy/haproxy.cfg` itself with the node addresses in its environment.
final class ProxyProcess {
    let process = Process()
    let port: Int
    /// HAProxy's stats page and Prometheus exporter (`/stats`, `/metrics`).
    let statsPort: Int

    /// With fewer than three nodes, the `server` lines of the missing ones are left out of a copy of the file.
    init(nodes: [Int], port: Int? = nil) throws {
        self.port = try port ?? freeLoopbackPort()
        var config = packageRoot.appendingPathComponent("deploy/haproxy.cfg").path
        if nodes.count < 3 {
            let lines = try String(contentsOfFile: config, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            let kept = lines.filter { line in
                let words = line.split(separator: " ")
                return !(words.first == "server" && Int(words[1].dropFirst(4)).map { $0 > nodes.count } == true)
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
        for (i, node) in nodes.enumerated() { environment["SNAPBOARD_NODE\(i + 1)"] = "127.0.0.1:\(node)" }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
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

    deinit { stop() }
}

extension EndToEnd {
    @Suite("Canvases sharded across nodes behind HAProxy", .serialized)
    struct ClusterTests {
        @Test("Through a real HAProxy, 30 canvases each live on one of three nodes; killing one leaves the others working and its canvases come back whole")
        func threeNodes() throws {
            var nodes = try (0..<3).map { _ in try ServerProcess() }
            let proxy = try ProxyProcess(nodes: nodes.map(\.port))
            let canvases = (0..<30).map { "board-\($0)" }
            var clients: [String: (ann: TestClient, bob: TestClient)] = [:]
            for canvas in canvases {
                let ann = try TestClient("ws://127.0.0.1:\(proxy.port)/v1/canvases/\(canvas)")
                let bob = try TestClient("ws://127.0.0.1:\(proxy.port)/v1/canvases/\(canvas)")
                clients[canvas] = (ann, bob)
            }
            // Every canvas's two clients see each other: bob gets ann's snap.
            for canvas in canvases {
                let (ann, bob) = clients[canvas]!
                ann.op("a1", "snap", #""x":100,"y":100"#)
                #expect(ann.pump { $0.all("ack").count == 1 }, "\(canvas): ann's ack")
                #expect(bob.pump { $0.all("delta").contains { $0["seq"] == .number(1) } }, "\(canvas): bob sees ann's snap")
            }
            // Each canvas's data lives on exactly one node, and the proxy spread them over all three.
            func holders() throws -> [String: [Int]] { try CanonicalPathTests.holders(nodes) }
            let placed = try holders()
            #expect(canvases.allSatisfy { placed[$0]?.count == 1 }, "\(placed)")
            let perNode = (0..<3).map { i in canvases.filter { placed[$0] == [i] } }
            #expect(perNode.allSatisfy { !$0.isEmpty }, "\(perNode.map(\.count))")
            // Kill the node with the most canvases, as a crash would.
            let victim = perNode.indices.max { perNode[$0].count < perNode[$1].count }!
            let (port, data) = (nodes[victim].port, nodes[victim].dataPath)
            kill(nodes[victim].process.processIdentifier, SIGKILL)
            nodes[victim].process.waitUntilExit()
            // The other canvases keep working throughout: a second snap on each is acked and seen.
            for canvas in canvases where placed[canvas] != [victim] {
                let (ann, bob) = clients[canvas]!
                ann.op("a2", "snap", #""x":300,"y":300"#)
                #expect(ann.pump { $0.all("ack").count == 2 }, "\(canvas) while a node is down")
                #expect(bob.pump { $0.all("delta").contains { $0["seq"] == .number(2) } })
            }
            // The dead node's canvases are unavailable, not moved: nothing else answers for them. (Each such
            // request takes HAProxy's retries, about 3 s: two canvases show it.)
            for canvas in perNode[victim].prefix(2) {
                #expect(try httpGet(port: proxy.port, "/v1/canvases/\(canvas)").status == 503, "\(canvas) while its node is down")
            }
            // Back on the same port and file, its canvases are whole: what was acked before the kill is there.
            nodes[victim] = try ServerProcess(["--port", "\(port)"], data: data)
            for canvas in perNode[victim] {
                let body = try httpGet(port: proxy.port, "/v1/canvases/\(canvas)").body
                #expect(body.contains(#""seq":1"#) && body.contains(#""id":"s1""#), "\(canvas) after the restart: \(body)")
                let carol = try TestClient("ws://127.0.0.1:\(proxy.port)/v1/canvases/\(canvas)")
                let welcome = carol.expect(type: "welcome")
                #expect(welcome?["shapes"]?[0]?["id"] == .string("s1"))
            }
            // And still each canvas on exactly one node.
            let after = try holders()
            #expect(canvases.allSatisfy { after[$0] == placed[$0] }, "\(after)")
            withExtendedLifetime(proxy) {}
        }

        @Test("Adding a node: deploy/move-canvases.sh moves exactly the canvases the proxy now routes to it, whole")
        func addNode() throws {
            let nodes = try (0..<3).map { _ in try ServerProcess() }
            var proxy = try ProxyProcess(nodes: Array(nodes.prefix(2).map(\.port)))
            let canvases = (0..<24).map { "grow-\($0)" }
            for canvas in canvases {
                let ann = try TestClient("ws://127.0.0.1:\(proxy.port)/v1/canvases/\(canvas)")
                for i in 1...2 { ann.op("s\(i)", "snap", #""x":\#(i * 100),"y":100"#) }
                #expect(ann.pump { $0.all("ack").count == 2 })
                ann.close()
            }
            func listed(_ node: ServerProcess) throws -> Set<String> {
                let body = try JSONValue.parse(Array(try httpGet(port: node.port, "/v1/canvases?limit=1000").body.utf8))
                guard case .array(let items)? = body["canvases"] else { return [] }
                return Set(items.compactMap { if case .string(let id)? = $0["id"] { id } else { nil } })
            }
            #expect(try listed(nodes[2]).isEmpty)
            // The third node joins the proxy; consistent hashing hands it about a third of the canvases.
            let port = proxy.port
            proxy.stop()  // HAProxy binds with SO_REUSEPORT: two would share the port
            proxy = try ProxyProcess(nodes: nodes.map(\.port), port: port)
            let script = packageRoot.appendingPathComponent("deploy/move-canvases.sh")
            let moved = try runCommand(script, ["127.0.0.1:\(port)"] + nodes.enumerated().map { "node\($0 + 1)=127.0.0.1:\($1.port)" },
                                       withErrors: true)
            #expect(moved.status == 0, "\(moved.output)")
            let onNew = try listed(nodes[2])
            #expect(!onNew.isEmpty && onNew.count < canvases.count, "\(moved.output)")
            #expect(moved.output.contains("\(onNew.count) canvases moved"))
            // Every canvas is on exactly one node, the one the proxy sends it to, with both shapes.
            let held = try nodes.map(listed)
            for canvas in canvases {
                #expect(held.filter { $0.contains(canvas) }.count == 1, "\(canvas)")
                let body = try httpGet(port: port, "/v1/canvases/\(canvas)").body
                #expect(body.contains(#""id":"s1""#) && body.contains(#""id":"s2""#), "\(canvas): \(body)")
            }
            // A second run finds nothing left to move.
            let again = try runCommand(script, ["127.0.0.1:\(port)"] + nodes.enumerated().map { "node\($0 + 1)=127.0.0.1:\($1.port)" })
            #expect(again.output.contains("0 canvases moved"))
            withExtendedLifetime(proxy) {}
        }
    }
}
