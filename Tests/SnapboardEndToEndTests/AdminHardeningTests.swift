import Foundation
import SnapboardAuth
import SnapboardTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    /// What an attacker tries on the operator's side: guessing the admin token, a short one, the admin token
    /// on a server that verifies JWTs, weak TLS ciphers, a second server on the same database through another
    /// name, and the deployment's defaults.
    @Suite("Admin and deployment hardening, end to end", .serialized)
    struct AdminHardeningTests {
        static let admin = "an-admin-token-that-is-well-over-32-characters"
        static let curl = URL(fileURLWithPath: "/usr/bin/curl")

        /// The status and headers of a request made with curl from `source` (a loopback address of its own).
        static func curlStatus(_ server: ServerProcess, _ path: String, token: String?, source: String = "127.0.0.1") throws -> (status: Int, head: String) {
            var arguments = ["-sS", "-o", "/dev/null", "-D", "-", "--interface", source, "http://127.0.0.1:\(server.port)\(path)"]
            if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
            let result = try runCommand(curl, arguments)
            let status = result.output.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return (status, result.output)
        }

        @Test("An admin token shorter than 32 characters stops the server at start, as a flag or as SNAPBOARD_ADMIN_TOKEN")
        func shortAdminToken() throws {
            #expect(throws: ServerStartError.self) { try ServerProcess(["--admin-token", "ops-only"]) }
            // Under `timeout`: a server that took the token would serve until stopped.
            let timeout = URL(fileURLWithPath: "/usr/bin/timeout"), serve = ["10", serverBinary.path, "--port", "0", "--data", ":memory:"]
            let flag = try runCommand(timeout, serve + ["--admin-token", String(repeating: "x", count: 31)], withErrors: true)
            #expect(flag.status != 0 && flag.output.contains("at least 32 characters"), "\(flag.output)")
            let variable = try runCommand(timeout, serve, environment: ["SNAPBOARD_ADMIN_TOKEN": "short"], withErrors: true)
            #expect(variable.status != 0 && variable.output.contains("at least 32 characters"), "\(variable.output)")
            // 32 is enough.
            let server = try ServerProcess(["--admin-token", String(repeating: "y", count: 32)])
            #expect(try httpGet(port: server.port, "/metrics", headers: ["Authorization: Bearer " + String(repeating: "y", count: 32)]).status == 200)
        }

        @Test("Wrong admin tokens from one address are answered 429 with Retry-After once past the budget, and logged with a limit; other addresses are not held up")
        func guessesThrottled() throws {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-admin-\(UUID().uuidString).log").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let server = try ServerProcess(["--admin-token", Self.admin], errorLog: log)
            var statuses: [Int] = []
            for guess in 0..<40 {
                statuses.append(try Self.curlStatus(server, "/metrics", token: "guess-\(guess)-of-the-admin-token-padding-padding").status)
            }
            #expect(statuses.prefix(10).allSatisfy { $0 == 401 }, "\(statuses)")
            #expect(statuses.suffix(25).allSatisfy { $0 == 429 }, "\(statuses)")
            // Held up: even the right token from that address waits, so a guess that hits is not told apart.
            let held = try Self.curlStatus(server, "/metrics", token: Self.admin)
            #expect(held.status == 429 && held.head.lowercased().contains("retry-after:"), "\(held.head)")
            // The same guesses on the listing and on changes count too.
            #expect(try Self.curlStatus(server, "/v1/canvases", token: "wrong-wrong-wrong-wrong-wrong-wrong").status == 429)
            // Another address is not held up by the first one's guesses.
            #expect(try Self.curlStatus(server, "/metrics", token: Self.admin, source: "127.0.0.2").status == 200)
            #expect(try Self.curlStatus(server, "/metrics", token: nil, source: "127.0.0.2").status == 401)
            // Each failure is logged with its address, but no more than the limiter lets through.
            try waitFor(5) { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("admin authentication failed") }
            let text = try String(contentsOfFile: log, encoding: .utf8)
            let lines = text.split(separator: "\n").filter { $0.contains("admin authentication") }
            #expect(!lines.isEmpty && lines.count <= 21, "\(lines.count) lines")
            #expect(text.contains("127.0.0.1"))
            #expect(try httpGet(port: server.port, "/metrics", headers: ["Authorization: Bearer " + Self.admin]).status == 429)
            let metrics = try Self.curlStatus(server, "/metrics", token: Self.admin, source: "127.0.0.3")
            #expect(metrics.status == 200)
        }

        @Test("The admin token works on every admin endpoint of a server that also verifies JWTs (what an operator's script asks)")
        func adminOnJWTServer() throws {
            let server = try ServerProcess(["--auth-secret", AccessTests.secret, "--admin-token", Self.admin])
            let bearer = ["Authorization: Bearer " + Self.admin, "Content-Type: application/json"]
            #expect(try http(port: server.port, "POST", "/v1/canvases/moving", body: "{}", headers: bearer).status == 201)
            #expect(try http(port: server.port, "GET", "/v1/canvases", headers: bearer).status == 200)
            #expect(try http(port: server.port, "GET", "/v1/canvases/moving", headers: bearer).status == 200)
            #expect(try http(port: server.port, "GET", "/v1/canvases/moving?at=0", headers: bearer).status == 200)
            #expect(try http(port: server.port, "GET", "/v1/canvases/moving?token=" + Self.admin).status == 200)
            #expect(try http(port: server.port, "GET", "/v1/canvases/moving/history?limit=1", headers: bearer).status == 200)
            let export = try http(port: server.port, "GET", "/v1/canvases/moving/export", headers: bearer)
            #expect(export.status == 200)
            #expect(try http(port: server.port, "PUT", "/v1/canvases/moved", body: export.body, headers: bearer).status == 200)
            #expect(try http(port: server.port, "GET", "/metrics", headers: bearer).status == 200)
            #expect(try http(port: server.port, "DELETE", "/v1/canvases/moving", headers: bearer).status == 204)
            // A JWT still reads its own canvas, and nothing else stands in for one.
            let token = try AccessTests.token("moved", .viewer)
            #expect(try http(port: server.port, "GET", "/v1/canvases/moved", headers: ["Authorization: Bearer \(token)"]).status == 200)
            #expect(try http(port: server.port, "GET", "/v1/canvases/moved", headers: ["Authorization: Bearer " + Self.admin + "x"]).status == 401)
            #expect(try http(port: server.port, "GET", "/v1/canvases/moved/export").status == 401)
            // The admin token opens no WebSocket: sessions carry a user's JWT.
            #expect(try AccessTests.upgradeStatus(server, "/v1/canvases/moved?token=" + Self.admin) == 401)
        }

        /// A self-signed RSA certificate (an RSA key is what static-RSA key exchange needs): (certificate, key).
        static func rsaCertificate() throws -> (certificate: String, key: String) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-rsa-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let certificate = folder.appendingPathComponent("cert.pem").path, key = folder.appendingPathComponent("key.pem").path
            let made = try runCommand(URL(fileURLWithPath: "/usr/bin/openssl"), [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ], withErrors: true)
            #expect(made.status == 0, "openssl req: \(made.output)")
            return (certificate, key)
        }

        /// `openssl s_client` against the server with `options`: its exit status and what it printed.
        static func handshake(_ server: ServerProcess, _ options: String) throws -> (status: Int32, output: String) {
            try runCommand(URL(fileURLWithPath: "/bin/sh"),
                           ["-c", "openssl s_client -connect 127.0.0.1:\(server.port) \(options) </dev/null 2>&1"])
        }

        @Test("TLS offers the intermediate cipher set only: no static-RSA key exchange, no CBC with SHA-1; ECDHE with AES-GCM and TLS 1.3 are taken")
        func tlsCiphers() throws {
            let (certificate, key) = try Self.rsaCertificate()
            let server = try ServerProcess(["--tls-cert", certificate, "--tls-key", key])
            for weak in ["AES128-SHA", "AES256-SHA", "AES128-GCM-SHA256", "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-SHA", "DES-CBC3-SHA"] {
                let result = try Self.handshake(server, "-tls1_2 -cipher \(weak)")
                #expect(result.status != 0, "\(weak) was accepted: \(result.output.suffix(400))")
            }
            for strong in ["ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-CHACHA20-POLY1305"] {
                let result = try Self.handshake(server, "-tls1_2 -cipher \(strong)")
                #expect(result.status == 0 && result.output.contains("Cipher is \(strong)"), "\(strong): \(result.output.suffix(400))")
            }
            let modern = try Self.handshake(server, "-tls1_3")
            #expect(modern.status == 0 && modern.output.contains("TLSv1.3"), "\(modern.output.suffix(400))")
            #expect(try Self.handshake(server, "-tls1_1").status != 0)
        }

        @Test("The data file's lock is on the database itself: a second server through a hard link or a symlink is refused, and starts once the first has stopped")
        func lockThroughOtherNames() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-links-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let original = directory.appendingPathComponent("canvases.sqlite").path
            let hard = directory.appendingPathComponent("hard.sqlite").path, soft = directory.appendingPathComponent("soft.sqlite").path
            let other = directory.appendingPathComponent("elsewhere")
            try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
            let deep = other.appendingPathComponent("deep.sqlite").path
            let first = try ServerProcess(data: original)
            let client = try TestClient(first.url("held"))
            client.op("h1", "snap", #""x":100,"y":100"#)
            client.pump { $0.all("ack").count == 1 }
            let backup = directory.appendingPathComponent("held.json").path
            try Data(try httpGet(port: first.port, "/v1/canvases/held/export").body.utf8).write(to: URL(fileURLWithPath: backup))
            try FileManager.default.linkItem(atPath: original, toPath: hard)
            try FileManager.default.createSymbolicLink(atPath: soft, withDestinationPath: original)
            try FileManager.default.createSymbolicLink(atPath: deep, withDestinationPath: "../canvases.sqlite")
            for path in [original, hard, soft, deep] {
                #expect(throws: ServerStartError.self, "\(path)") { try ServerProcess(data: path) }
                let busy = try runServerCommand(["import", "--data", path, "--input", backup], withErrors: true)
                #expect(busy.status != 0 && busy.output.contains("is in use by another snapboard-server or import"), "\(busy.output)")
            }
            // No sidecar file is left beside the database.
            #expect(!FileManager.default.fileExists(atPath: original + ".lock"))
            _ = first.terminate()
            // Through the symlink, which SQLite follows to the same file and the same WAL. (A hard link is
            // another name for the file but not for its WAL: a server run through one does not see what the
            // WAL still holds. The lock keeps two from running at once; it cannot make the names agree.)
            let second = try ServerProcess(data: soft)
            #expect(try httpGet(port: second.port, "/v1/canvases/held").body.contains(#""seq":1"#))
        }

        @Test("docker-compose.yml's defaults: published on 127.0.0.1, a secret required with a message saying how, no open mode, allowed hosts set, HAProxy's stats on loopback")
        func composeDefaults() throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let compose = try String(contentsOf: root.appendingPathComponent("docker-compose.yml"), encoding: .utf8)
            let lines = compose.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let ports = lines.filter { $0.hasPrefix("- \"") && ($0.contains(":80") || $0.contains(":84")) }
            #expect(!ports.isEmpty)
            for port in ports {
                #expect(port.hasPrefix("- \"${SNAPBOARD_PUBLISH_ADDRESS:-127.0.0.1}:") || port.hasPrefix("- \"127.0.0.1:"), "\(port)")
            }
            #expect(ports.contains { $0.hasPrefix("- \"127.0.0.1:8404:") }, "HAProxy's stats only on loopback")
            #expect(!lines.contains { $0.hasPrefix("SNAPBOARD_INSECURE_OPEN:") && !$0.hasSuffix("\"\"") })
            let secrets = lines.filter { $0.hasPrefix("SNAPBOARD_AUTH_SECRET:") }
            #expect(secrets.count == 2, "the server and the cluster's nodes")
            #expect(secrets.allSatisfy { $0.contains("${SNAPBOARD_AUTH_SECRET:?") && $0.contains("openssl rand") }, "\(secrets)")
            let hosts = lines.filter { $0.hasPrefix("SNAPBOARD_ALLOWED_HOSTS:") }
            #expect(!hosts.isEmpty && hosts.allSatisfy { $0.contains("${SNAPBOARD_ALLOWED_HOSTS:-localhost") }, "\(hosts)")
        }
    }
}
