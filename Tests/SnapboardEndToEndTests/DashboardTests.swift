import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    @Suite("Metrics and the Grafana dashboard", .serialized)
    struct DashboardTests {
        /// The metric names a Prometheus text exposition defines: every family's `# TYPE` (one with no sample
        /// yet, such as a counter of rejects by code, is still defined) and every sample's name (a histogram's
        /// `_bucket`, `_sum`, `_count`).
        static func names(_ exposition: String) -> Set<String> {
            var names = Set<String>()
            for line in exposition.split(whereSeparator: \.isNewline) {
                let words = line.split(separator: " ")
                if words.count >= 3, words[0] == "#", words[1] == "TYPE" { names.insert(String(words[2])) }
                if !line.hasPrefix("#") { names.insert(String(line.prefix { $0 != "{" && $0 != " " })) }
            }
            return names
        }

        @Test("Per-canvas gauges name only the busiest 10 canvases, and every metric the dashboard queries exists")
        func dashboardMetrics() throws {
            let server = try ServerProcess(["--metrics-canvas-names"])
            let proxy = try ProxyProcess(nodes: [server.port])
            var clients: [TestClient] = []
            for i in 0..<12 {
                for _ in 0...(i % 3) { clients.append(try TestClient("ws://127.0.0.1:\(proxy.port)/v1/canvases/busy-\(i)")) }
            }
            for client in clients { _ = client.expect(type: "welcome") }
            let metrics = try httpGet(port: server.port, "/metrics").body
            let sessions = metrics.split(separator: "\n").filter { $0.hasPrefix("snapboard_canvas_sessions{") }
            #expect(sessions.count == 10, "\(sessions)")
            // The top ones: every canvas with three sessions (busy-2, -5, -8, -11) is among them.
            for canvas in ["busy-2", "busy-5", "busy-8", "busy-11"] {
                #expect(sessions.contains { $0 == "snapboard_canvas_sessions{canvas=\"\(canvas)\"} 3" }, "\(canvas)")
            }
            var defined = Self.names(metrics)
            defined.formUnion(Self.names(try httpGet(port: proxy.statsPort, "/metrics").body))
            // A cluster node's own figures (lease, takeovers, fencing, replication lag), from a node on a real PostgreSQL.
            let database = try PostgresServer(fsync: false)
            let nodePort = try freeLoopbackPort()
            let node = try ServerProcess(["--port", "\(nodePort)", "--database-url", database.url, "--node-id", "dash",
                                          "--advertise-url", "http://127.0.0.1:\(nodePort)"])
            let clustered = Self.names(try httpGet(port: node.port, "/metrics").body)
            #expect(clustered.contains("snapboard_cluster_lease_fresh") && clustered.contains("snapboard_cluster_replication_lag_seconds"))
            defined.formUnion(clustered)
            let dashboard = try JSONValue.parse(Array(try Data(contentsOf: packageRoot.appendingPathComponent("deploy/grafana-dashboard.json"))))
            guard case .array(let panels)? = dashboard["panels"] else { Issue.record("no panels"); return }
            #expect(panels.count >= 15)
            var queried = 0
            for panel in panels {
                guard case .array(let targets)? = panel["targets"] else { continue }
                for case .string(let expr)? in targets.map({ $0["expr"] }) {
                    let pattern = try Regex(#"\b(snapboard|process|haproxy)_[a-z_]+\b"#)
                    for match in expr.matches(of: pattern) {
                        queried += 1
                        let exported = defined.contains(String(expr[match.range]))
                        #expect(exported, "\(panel["title"] ?? .null): \(expr[match.range]) is not exported")
                    }
                }
            }
            #expect(queried >= 20)
        }
    }
}
