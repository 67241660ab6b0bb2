import Foundation
import SnapboardAuth
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    /// Who may connect. Tokens and roles, the admin token, origins and hosts, open mode.
    @Suite("Access control, end to end", .serialized)
    struct AccessTests {
        static let secret = "a-test-secret-that-is-longer-than-32-bytes"
        static let upgrade = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]

        static func token(_ canvas: String, _ role: AccessRole, sub: String = "ada", name: String? = nil, expiresIn: Double = 3600,
                          secret: String = secret) throws -> String {
            try TokenSigner(secret: secret).sign(AccessClaims(
                subject: sub, canvas: canvas, role: role, expires: Date().timeIntervalSince1970 + expiresIn, name: name))
        }

        /// The status an upgrade to `path` gets, with `headers` added.
        static func upgradeStatus(_ server: ServerProcess, _ path: String, _ headers: [String] = []) throws -> Int {
            try httpGet(port: server.port, path, headers: upgrade + headers).status
        }

        @Test("[P1] With --auth-secret: editor, viewer, expired, wrong canvas, bad signature, malformed and no token")
        func authMatrix() throws {
            let server = try ServerProcess(["--auth-secret", Self.secret])
            let editor = try Self.token("board", .editor, sub: "ada", name: "Ada L.")
            let viewer = try Self.token("board", .viewer, sub: "bob")
            // An editor's op commits; presence names the token's user.
            let ada = try TestClient(server.url("board", "token=\(editor)&name=spoofed"))
            let welcome = ada.expect(type: "welcome")
            #expect(welcome?["sessions"]?[0]?["user"] == .string("ada"))
            #expect(welcome?["sessions"]?[0]?["name"] == .string("Ada L."))
            ada.op("e1", "snap", #""x":100,"y":100"#)
            #expect(ada.expect(type: "ack")?["seq"] == .number(1))
            // A viewer reads, and its ops are forbidden, whatever role it asks for in the query. Its token
            // carries no name (a shared link's), so presence shows the name it gave beside its `user`.
            let bob = try TestClient(server.url("board", "token=\(viewer)&role=editor&name=Bobby"))
            let bobWelcome = bob.expect(type: "welcome")
            #expect(bobWelcome?["seq"] == .number(1))
            guard case .array(let sessions)? = bobWelcome?["sessions"] else { Issue.record("no sessions"); return }
            let bobSelf = sessions.first { $0["session"] == bobWelcome?["session"] }
            #expect(bobSelf?["name"] == .string("Bobby") && bobSelf?["user"] == .string("bob"))
            bob.op("v1", "snap", #""x":200,"y":200"#)
            #expect(bob.expect(type: "reject")?["code"] == .string("forbidden"))
            // An editor may ask for less.
            let narrowed = try TestClient(server.url("board", "token=\(editor)&role=viewer"))
            _ = narrowed.expect(type: "welcome")
            narrowed.op("n1", "snap", #""x":300,"y":300"#)
            #expect(narrowed.expect(type: "reject")?["code"] == .string("forbidden"))
            // The Authorization header works as well as ?token=.
            #expect(try Self.upgradeStatus(server, "/v1/canvases/board", ["Authorization: Bearer \(editor)"]) == 101)
            #expect(try Self.upgradeStatus(server, "/v1/canvases/board", ["Authorization: bearer \(viewer)"]) == 101)
            // Everything else is a 401 at the handshake.
            let refused = [
                ("none", ""),
                ("expired", "token=" + (try Self.token("board", .editor, expiresIn: -1))),
                ("wrong canvas", "token=" + (try Self.token("other", .editor))),
                ("bad signature", "token=" + (try Self.token("board", .editor, secret: Self.secret + "-not"))),
                ("malformed", "token=not.a.jwt"),
                ("alg none", "token=eyJhbGciOiJub25lIn0.eyJzdWIiOiJlIiwiY2FudmFzIjoiKiIsInJvbGUiOiJlZGl0b3IiLCJleHAiOjQwMDAwMDAwMDB9."),
            ]
            for (what, query) in refused {
                #expect(try Self.upgradeStatus(server, "/v1/canvases/board" + (query.isEmpty ? "" : "?" + query)) == 401, "\(what)")
            }
            // Nothing reached the canvas: it holds the editor's one shape.
            let snapshot = try httpGet(port: server.port, "/v1/canvases/board", headers: ["Authorization: Bearer \(viewer)"])
            #expect(snapshot.status == 200 && snapshot.body.contains(#""seq":1"#))
            #expect(try httpGet(port: server.port, "/v1/canvases/board").status == 401)
            #expect(try httpGet(port: server.port, "/v1/canvases/board?token=\(try Self.token("other", .editor))").status == 401)
            let metrics = try httpGet(port: server.port, "/metrics").body
            for line in [#"snapboard_refused_total{reason="expired"} 1"#, #"snapboard_refused_total{reason="signature"} 1"#,
                         #"snapboard_refused_total{reason="wrong_canvas"} 2"#, #"snapboard_refused_total{reason="missing"} 2"#,
                         #"snapboard_refused_total{reason="algorithm"} 1"#, #"snapboard_refused_total{reason="malformed"} 1"#] {
                #expect(metrics.contains(line), "\(line)")
            }
        }

        @Test("A token minted by `snapboard-server token` opens its canvas prefix; an ES256 public key verifies tokens")
        func mintedAndPublicKeyTokens() throws {
            let minted = try runServerCommand(["token", "--canvas", "team-42-*", "--role", "viewer", "--ttl", "10m", "--sub", "cy", "--secret", Self.secret])
            #expect(minted.status == 0)
            let token = minted.output.trimmingCharacters(in: .whitespacesAndNewlines)
            let server = try ServerProcess(["--auth-secret", Self.secret])
            #expect(try Self.upgradeStatus(server, "/v1/canvases/team-42-plan?token=\(token)") == 101)
            #expect(try Self.upgradeStatus(server, "/v1/canvases/team-43-plan?token=\(token)") == 401)

            // A key pair made by openssl: the server holds the public half, the token command signs with the other.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-keys-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let (privatePEM, publicPEM) = try makeKeyPair(in: folder)
            let es256 = try runServerCommand(["token", "--canvas", "team-42-board", "--sub", "ed", "--private-key", privatePEM])
                .output.trimmingCharacters(in: .whitespacesAndNewlines)
            let keyed = try ServerProcess(["--auth-public-key", publicPEM])
            let client = try TestClient(keyed.url("team-42-board", "token=\(es256)"))
            #expect(client.expect(type: "welcome")?["sessions"]?[0]?["user"] == .string("ed"))
            #expect(try Self.upgradeStatus(keyed, "/v1/canvases/team-42-board?token=\(token)") == 401)  // HS256: no secret here
        }

        @Test("A session is closed with 4001 when its token expires")
        func expiry() throws {
            let server = try ServerProcess(["--auth-secret", Self.secret])
            let client = try TestClient(server.url("brief", "token=\(try Self.token("brief", .editor, expiresIn: 2))"))
            _ = client.expect(type: "welcome")
            client.pump(timeout: 6) { $0.closed != nil }
            #expect(client.closed?.code == CloseCode.tokenExpired)
        }

        @Test("--admin-token guards /metrics; /healthz stays open")
        func adminToken() throws {
            let server = try ServerProcess(["--admin-token", "ops-only-admin-token-of-32-characters"])
            #expect(try httpGet(port: server.port, "/metrics").status == 401)
            #expect(try httpGet(port: server.port, "/metrics", headers: ["Authorization: Bearer wrong-one"]).status == 401)
            #expect(try httpGet(port: server.port, "/metrics", headers: ["Authorization: Bearer ops-only-admin-token-of-32-characters"]).status == 200)
            #expect(try httpGet(port: server.port, "/metrics?token=ops-only-admin-token-of-32-characters").status == 200)
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
        }

        @Test("Origins: the server's own page and native clients pass, other sites get 403 unless listed")
        func origins() throws {
            let server = try ServerProcess(["--allowed-origin", "https://app.example.com", "--allowed-origin", "*.team.example"])
            let path = "/v1/canvases/o"
            #expect(try Self.upgradeStatus(server, path) == 101)
            #expect(try Self.upgradeStatus(server, path, ["Origin: http://127.0.0.1"]) == 101)  // Host is 127.0.0.1
            #expect(try Self.upgradeStatus(server, path, ["Origin: https://app.example.com"]) == 101)
            #expect(try Self.upgradeStatus(server, path, ["Origin: https://a.team.example"]) == 101)
            #expect(try Self.upgradeStatus(server, path, ["Origin: https://evil.example"]) == 403)
            #expect(try Self.upgradeStatus(server, path, ["Origin: null"]) == 403)
            let open = try ServerProcess()
            #expect(try Self.upgradeStatus(open, path, ["Origin: https://app.example.com"]) == 403)
        }

        @Test("Hosts: a loopback server answers loopback names only; --allowed-host lists others; /healthz answers any")
        func hosts() throws {
            let server = try ServerProcess()
            #expect(try Self.upgradeStatus(server, "/v1/canvases/h", ["Host: localhost:1234"]) == 101)
            #expect(try Self.upgradeStatus(server, "/v1/canvases/h", ["Host: rebound.evil.example"]) == 403)
            #expect(try httpGet(port: server.port, "/metrics", headers: ["Host: rebound.evil.example"]).status == 403)
            #expect(try httpGet(port: server.port, "/", headers: ["Host: rebound.evil.example"]).status == 403)
            let listed = try ServerProcess(["--allowed-host", "board.example.com"])
            #expect(try Self.upgradeStatus(listed, "/v1/canvases/h", ["Host: board.example.com"]) == 101)
            #expect(try httpGet(port: listed.port, "/metrics", headers: ["Host: localhost"]).status == 403)
            // Health checkers (Docker, HAProxy) reach /healthz by whatever name: it answers any Host.
            #expect(try httpGet(port: listed.port, "/healthz", headers: ["Host: 10.0.0.7:8080"]).status == 200)
        }

        @Test("Open mode: refused on a non-loopback address unless --insecure-open, and said in the log")
        func openMode() throws {
            let refused = try runServerCommand(["--host", "0.0.0.0", "--port", "0", "--data", ":memory:"])
            #expect(refused.status != 0)
            let server = try ServerProcess(["--host", "0.0.0.0", "--insecure-open"])
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
            let keyed = try ServerProcess(["--host", "0.0.0.0", "--auth-secret", Self.secret])
            #expect(try Self.upgradeStatus(keyed, "/v1/canvases/x") == 401)
        }

        @Test("[P1] Reading never creates a canvas: GET of an id never stored is 404 and loads nothing")
        func readingDoesNotCreate() throws {
            let server = try ServerProcess()
            for i in 0..<20 {
                let response = try httpGet(port: server.port, "/v1/canvases/never-\(i)")
                #expect(response.status == 404 && response.body.contains(#""error":"not_found""#))
            }
            #expect(try httpGet(port: server.port, "/healthz").body.contains(#""canvases":0"#))
            let client = try TestClient(server.url("made"))
            _ = client.expect(type: "welcome")
            #expect(try httpGet(port: server.port, "/v1/canvases/made").status == 200)
        }

        @Test("[P1] Query values are decoded once; long values and long URLs are a 400, long headers are read, %00 is dropped")
        func queryParsing() throws {
            let server = try ServerProcess()
            // %2577 is "%77" once decoded, which is not "w": this role is not a role.
            #expect(try Self.upgradeStatus(server, "/v1/canvases/q?role=vie%2577er") == 400)
            // A long parameter before role no longer hides it.
            let viewer = try TestClient(server.url("q", "name=" + String(repeating: "n", count: 2000) + "&role=viewer"))
            _ = viewer.expect(type: "welcome")
            viewer.op("v", "snap", #""x":10,"y":10"#)
            #expect(viewer.expect(type: "reject")?["code"] == .string("forbidden"))
            #expect(try Self.upgradeStatus(server, "/v1/canvases/q?name=" + String(repeating: "n", count: 5000)) == 400)
            // libwebsockets 4.1 closes the connection at a %00 in a URL, before Snapboard sees the request
            // (status 0: no answer at all); the server goes on serving.
            #expect(try Self.upgradeStatus(server, "/v1/canvases/q%00x") == 0)
            #expect(try Self.upgradeStatus(server, "/v1/canvases/q?name=a%00b") == 0)
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
            #expect(try httpGet(port: server.port, "/v1/canvases/" + String(repeating: "q", count: 8192)).status == 400)
            #expect(try Self.upgradeStatus(server, "/v1/canvases/q", ["X-Padding: " + String(repeating: "p", count: 6000)]) == 101)
        }
    }
}
