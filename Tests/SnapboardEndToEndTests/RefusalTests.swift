import Foundation
import SnapboardAuth
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

extension EndToEnd {
    @Suite("Refusals every client can read: HTTP/1.1 status lines, 405 with Allow, 415, node names and canvas names kept back", .serialized)
    struct RefusalTests {
        /// The status line of the answer to an upgrade of `path` with `headers`.
        static func upgradeStatusLine(_ port: Int, _ path: String, headers: String = "") throws -> String {
            let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(SmugglingTests.upgradeHead)\(headers)\r\n"
            let response = try rawExchange(port: port, request, seconds: 3).response
            return String(response.split(separator: "\r\n", maxSplits: 1).first ?? "")
        }

        @Test("Upgrade refusals (401, 403, 404, 429, 503) and a 201 go out as HTTP/1.1 with their reason phrases and a JSON body")
        func statusLines() throws {
            let secured = try ServerProcess(["--auth-secret", AccessTests.secret])
            #expect(try Self.upgradeStatusLine(secured.port, "/v1/canvases/a") == "HTTP/1.1 401 Unauthorized")
            let open = try ServerProcess(["--max-connections-per-ip", "1"])
            #expect(try Self.upgradeStatusLine(open.port, "/v1/canvases/a", headers: "Origin: http://evil.example\r\n") == "HTTP/1.1 403 Forbidden")
            #expect(try Self.upgradeStatusLine(open.port, "/nowhere") == "HTTP/1.1 404 Not Found")
            let first = try TestClient("ws://127.0.0.1:\(open.port)/v1/canvases/a")
            _ = first.expect(type: "welcome")
            #expect(try Self.upgradeStatusLine(open.port, "/v1/canvases/a") == "HTTP/1.1 429 Too Many Requests")
            let full = try ServerProcess(["--max-connections", "1"])
            let only = try TestClient("ws://127.0.0.1:\(full.port)/v1/canvases/a")
            _ = only.expect(type: "welcome")
            let refused = try rawExchange(port: full.port, "GET /v1/canvases/a HTTP/1.1\r\nHost: 127.0.0.1\r\n\(SmugglingTests.upgradeHead)\r\n", seconds: 3)
            #expect(refused.response.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"), "\(refused.response)")
            #expect(refused.response.contains(#""error":"unavailable""#), "\(refused.response)")
            let created = try rawExchange(port: open.port, "POST /v1/canvases/made HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                          + "Content-Length: 2\r\nConnection: close\r\n\r\n{}")
            #expect(created.response.hasPrefix("HTTP/1.1 201 Created\r\n"), "\(created.response)")
            withExtendedLifetime((first, only)) {}
        }

        @Test("Python's websockets library reads a 401 refusal of an upgrade")
        func pythonWebsockets() throws {
            let probe = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import websockets"], withErrors: true)
            guard probe.status == 0 else {
                Issue.record("python3 with the websockets package is needed (pip install websockets): \(probe.output)")
                return
            }
            let server = try ServerProcess(["--auth-secret", AccessTests.secret])
            let script = """
                import sys
                from websockets.sync.client import connect
                from websockets.exceptions import InvalidStatus
                try:
                    connect(sys.argv[1], open_timeout=5).close()
                    print("connected")
                except InvalidStatus as e:
                    print("refused", e.response.status_code, e.response.reason_phrase)
                """
            let result = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, "ws://127.0.0.1:\(server.port)/v1/canvases/a"],
                                        withErrors: true)
            #expect(result.output.contains("refused 401 Unauthorized"), "\(result.output)")
        }

        @Test("A method the API does not list gets 405 with Allow, TRACE and PROPFIND included")
        func methodNotAllowed() throws {
            let server = try ServerProcess()
            for (method, path, allow) in [("TRACE", "/healthz", "GET"), ("PROPFIND", "/v1/canvases/a", "GET, POST, PUT, DELETE"),
                                          ("PATCH", "/v1/canvases/a", "GET, POST, PUT, DELETE"), ("OPTIONS", "/v1/canvases", "GET, POST"),
                                          ("CONNECT", "/healthz", "GET")] {
                let (response, closed) = try rawExchange(port: server.port, "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                #expect(response.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"), "\(method) \(path): \(response)")
                #expect(response.lowercased().contains("\r\nallow: \(allow.lowercased())\r\n"), "\(method) \(path): \(response)")
                #expect(response.contains(#""error":"method_not_allowed""#) && closed, "\(method) \(path): \(response)")
            }
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
        }

        @Test("POST and PUT bodies must be application/json: 415 otherwise, a missing Content-Type included")
        func jsonBodiesOnly() throws {
            let server = try ServerProcess()
            func post(_ type: String?) throws -> String {
                let header = type.map { "Content-Type: \($0)\r\n" } ?? ""
                return try rawExchange(port: server.port, "POST /v1/canvases HTTP/1.1\r\nHost: 127.0.0.1\r\n\(header)Content-Length: 11\r\nConnection: close\r\n\r\n"
                                       + #"{"id":"j1"}"#).response
            }
            for type in [nil, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"] {
                let response = try post(type)
                #expect(response.hasPrefix("HTTP/1.1 415 Unsupported Media Type\r\n"), "\(type ?? "none"): \(response)")
                #expect(response.contains(#""error":"unsupported_media_type""#))
            }
            #expect(try httpGet(port: server.port, "/v1/canvases/j1").status == 404, "a refused body created the canvas")
            #expect(try post("Application/JSON; charset=utf-8").hasPrefix("HTTP/1.1 201 Created"))
            let put = try rawExchange(port: server.port, "PUT /v1/canvases/j1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
            #expect(put.response.hasPrefix("HTTP/1.1 415 "), "\(put.response)")
        }

        @Test("X-Snapboard-Node comes only from the cluster's proxy, and only to a request that asks for it")
        func nodeHeader() throws {
            let server = try ServerProcess()
            let proxy = try ProxyProcess(nodes: [server.port])
            let request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            let plain = try rawExchange(port: proxy.port, request + "\r\n").response
            #expect(plain.hasPrefix("HTTP/1.1 200") && !plain.lowercased().contains("x-snapboard-node"), "\(plain)")
            let asked = try rawExchange(port: proxy.port, request + "X-Snapboard-Node: ?\r\n\r\n").response
            #expect(asked.lowercased().contains("\r\nx-snapboard-node: node1\r\n"), "\(asked)")
            let direct = try rawExchange(port: server.port, request + "X-Snapboard-Node: ?\r\n\r\n").response
            #expect(direct.hasPrefix("HTTP/1.1 200") && !direct.lowercased().contains("x-snapboard-node"), "\(direct)")
            withExtendedLifetime(proxy) {}
        }

        @Test("/metrics names canvases only with --metrics-canvas-names")
        func metricsCanvasNames() throws {
            for named in [false, true] {
                let server = try ServerProcess(named ? ["--metrics-canvas-names"] : [])
                let client = try TestClient("ws://127.0.0.1:\(server.port)/v1/canvases/secret-board-id")
                _ = client.expect(type: "welcome")
                let metrics = try httpGet(port: server.port, "/metrics").body
                #expect(metrics.contains("secret-board-id") == named, "\(named): \(metrics)")
                #expect(metrics.contains("# TYPE snapboard_canvas_sessions gauge"))
            }
        }
    }
}
