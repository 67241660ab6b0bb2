import Foundation
import SnapboardAuth
import SnapboardProtocol
import SnapboardTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A node of a cluster on `database`: a real `snapboard-server` on a port picked first, since its id and
/// the address it advertises name the port.
private func clusterNode(_ database: PostgresServer, _ id: String, port: Int? = nil, _ extra: [String] = []) throws -> ServerProcess {
    let port = try port ?? freeLoopbackPort()
    return try ServerProcess(["--port", "\(port)", "--database-url", database.url, "--node-id", id,
                              "--advertise-url", "http://127.0.0.1:\(port)"] + extra)
}

/// The whole answer to one request written on a fresh connection (the server closes it, or 3 s pass).
private func rawAnswer(port: Int, _ request: String) throws -> String {
    let fd = try connectLoopback(port: port, receiveTimeout: 3)
    defer { close(fd) }
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16384)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0 else { break }
        bytes += buffer[0..<n]
        // An upgrade that was accepted stays open: its head is all there is to read.
        if String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 101"), bytes.firstRange(of: Array("\r\n\r\n".utf8)) != nil { break }
    }
    return String(decoding: bytes, as: UTF8.self)
}

private func upgradeAnswer(port: Int, _ target: String, host: String = "127.0.0.1", _ headers: [String] = []) throws -> String {
    try rawAnswer(port: port, "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
}

private func getAnswer(port: Int, _ target: String, host: String = "127.0.0.1", _ headers: [String] = []) throws -> String {
    try rawAnswer(port: port, "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
}

private let authSecret = "a-test-secret-that-is-longer-than-32-bytes"
private let adminToken = "ops-only-admin-token-of-32-characters"

/// An editor's token for `canvas`, signed with `authSecret`.
private func editorToken(_ canvas: String) throws -> String {
    try TokenSigner(secret: authSecret).sign(AccessClaims(subject: "ada", canvas: canvas, role: .editor, expires: Date().timeIntervalSince1970 + 3600))
}

/// The owner of each canvas whose id starts with `prefix`, as node `port`'s listing shows it with the admin
/// token ("-" for none).
private func listedOwners(port: Int, prefix: String) throws -> [String: String] {
    let body = try JSONValue.parse(Array(try httpGet(port: port, "/v1/canvases?prefix=\(prefix)",
                                                     headers: ["Authorization: Bearer \(adminToken)"]).body.utf8))
    guard case .array(let items)? = body["canvases"] else { return [:] }
    var owners: [String: String] = [:]
    for item in items {
        guard case .string(let id)? = item["id"] else { continue }
        if case .string(let owner)? = item["owner"] { owners[id] = owner } else { owners[id] = "-" }
    }
    return owners
}

/// The ops of a canvas's history (`GET …/history`): op id and seq, in seq order.
private func loggedOps(port: Int, _ canvas: String) throws -> [(id: String, seq: Int)] {
    let body = try JSONValue.parse(Array(try httpGet(port: port, "/v1/canvases/\(canvas)/history?limit=1000").body.utf8))
    guard case .array(let ops)? = body["ops"] else { return [] }
    return ops.compactMap { op in
        guard case .string(let id)? = op["opId"], case .number(let seq)? = op["seq"] else { return nil }
        return (id, Int(seq))
    }
}

/// The value of a sample in a `/metrics` text, by its full name with labels.
private func sample(_ metrics: String, _ name: String) -> Double? {
    metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
}

extension EndToEnd {
    @Suite("Ownership: one node owns each canvas of a cluster on PostgreSQL; the others send clients there", .serialized)
    struct OwnershipTests {
        @Test("Cluster options out of range, a port 0 without an id and address, TLS, and export or import on PostgreSQL are refused, saying why", arguments: [
            (["--lease-seconds", "2"], "--lease-seconds must be 3...600"),
            (["--lease-seconds", "601"], "--lease-seconds must be 3...600"),
            (["--commit-timeout", "0"], "--commit-timeout must be 1...600"),
            (["--port", "0"], "--port 0 with --database-url needs --node-id and --advertise-url"),
            (["--node-id", "a b"], "is not 1–48 characters of [A-Za-z0-9._-]"),
            (["--node-id", String(repeating: "n", count: 49)], "is not 1–48 characters"),
            (["--advertise-url", "ftp://x"], "is not an http:// or https:// address"),
            (["--advertise-url", "http://x/?a=b"], "is not an http:// or https:// address"),
            (["--tls-cert", "c.pem", "--tls-key", "k.pem"], "serves plain HTTP"),
            (["export", "--canvas", "a"], "export works on a SQLite file"),
            (["import", "--input", "a.json"], "import works on a SQLite file"),
        ])
        func refusedOptions(arguments: [String], message: String) throws {
            let subcommand = ["export", "import"].contains(arguments[0])
            let given = subcommand ? arguments : ["--port", "9", "--node-id", "n1"] + arguments
            let (status, output) = try runServerCommand(given + ["--database-url", "postgresql://nobody@127.0.0.1:1/none"], withErrors: true)
            #expect(status == 64 && output.contains(message), "\(output)")
        }

        @Test("[P24] A canvas written on node A: an upgrade on node B gets 421 with A's address in Location, an HTTP GET on B gets 307 there")
        func redirects() throws {
            let database = try PostgresServer(fsync: false)
            let a = try clusterNode(database, "node-a"), b = try clusterNode(database, "node-b")
            let ann = try TestClient(a.url("owned", "client=ann"))
            #expect(ann.expect(type: "welcome") != nil)
            ann.op("o1", "snap", #""x":100,"y":100"#)
            #expect(ann.expect(type: "ack")?["seq"] == .number(1))

            let refused = try upgradeAnswer(port: b.port, "/v1/canvases/owned?client=bob&name=Bo%20b")
            #expect(refused.hasPrefix("HTTP/1.1 421"), "\(refused)")
            #expect(refused.contains("\r\nlocation: http://127.0.0.1:\(a.port)/v1/canvases/owned?client=bob&name=Bo%20b\r\n"), "\(refused)")
            #expect(refused.contains(#""error":"moved""#) && refused.contains(#""owner":"node-a""#), "\(refused)")

            let redirected = try getAnswer(port: b.port, "/v1/canvases/owned")
            #expect(redirected.hasPrefix("HTTP/1.1 307"), "\(redirected)")
            #expect(redirected.lowercased().contains("\r\nlocation: http://127.0.0.1:\(a.port)/v1/canvases/owned\r\n"), "\(redirected)")
            let exported = try getAnswer(port: b.port, "/v1/canvases/owned/export")
            #expect(exported.hasPrefix("HTTP/1.1 307") && exported.lowercased().contains("/v1/canvases/owned/export\r\n"), "\(exported)")
            // Followed, the redirect leads to the canvas.
            #expect(try httpGet(port: a.port, "/v1/canvases/owned").body.contains(#""seq":1"#))
            // A itself still serves it.
            #expect(try upgradeAnswer(port: a.port, "/v1/canvases/owned").hasPrefix("HTTP/1.1 101"))
        }

        @Test("A query with an & and an = inside its values reaches the owner whole, every name and value percent-encoded in the 421's and 307's Location; one with a CR/LF gets 400 bad_framing and no Location")
        func redirectKeepsQuery() throws {
            let database = try PostgresServer(fsync: false)
            let a = try clusterNode(database, "node-a"), b = try clusterNode(database, "node-b")
            let ann = try TestClient(a.url("query", "client=ann"))
            #expect(ann.expect(type: "welcome") != nil)
            let query = "client=bob&name=x:y&note=a%26b%3Dc&token=t"
            let sent = "client=bob&name=x%3Ay&note=a%26b%3Dc&token=t"
            let refused = try upgradeAnswer(port: b.port, "/v1/canvases/query?\(query)")
            #expect(refused.hasPrefix("HTTP/1.1 421"), "\(refused)")
            #expect(refused.contains("\r\nlocation: http://127.0.0.1:\(a.port)/v1/canvases/query?\(sent)\r\n"), "\(refused)")
            let redirected = try getAnswer(port: b.port, "/v1/canvases/query/history?\(query)")
            #expect(redirected.hasPrefix("HTTP/1.1 307"), "\(redirected)")
            #expect(redirected.lowercased().contains("\r\nlocation: http://127.0.0.1:\(a.port)/v1/canvases/query/history?\(sent.lowercased())\r\n"), "\(redirected)")
            // libwebsockets ends the request line at a decoded CR or LF: refused before any redirect (P1).
            let broken = "client=bob&name=x%0d%0aFoo:bar&note=a%26b%3Dc&token=t"
            for answer in [try upgradeAnswer(port: b.port, "/v1/canvases/query?\(broken)"),
                           try getAnswer(port: b.port, "/v1/canvases/query/history?\(broken)")] {
                #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains("bad_framing"), "\(answer)")
                #expect(!answer.lowercased().contains("\r\nlocation:") && !answer.lowercased().contains("\r\nfoo:"), "\(answer)")
            }
        }

        @Test("Another node's canvas: a wrong Host or Origin gets 403 and no token 401 on a node that requires tokens, before any 421 or 307 says where it is")
        func redirectsAfterAccessChecks() throws {
            let database = try PostgresServer(fsync: false)
            let a = try clusterNode(database, "node-a")
            let b = try clusterNode(database, "node-b", ["--auth-secret", authSecret, "--allowed-origin", "https://app.example.com"])
            let ann = try TestClient(a.url("guarded", "client=ann"))
            #expect(ann.expect(type: "welcome") != nil)
            let token = try editorToken("guarded")
            let path = "/v1/canvases/guarded"
            for answer in [try upgradeAnswer(port: b.port, path), try getAnswer(port: b.port, path)] {
                #expect(answer.hasPrefix("HTTP/1.1 401") && !answer.contains("node-a") && !answer.lowercased().contains("location:"), "\(answer)")
            }
            for answer in [try upgradeAnswer(port: b.port, "\(path)?token=\(token)", ["Origin: https://evil.example"]),
                           try upgradeAnswer(port: b.port, "\(path)?token=\(token)", host: "rebound.evil.example"),
                           try getAnswer(port: b.port, "\(path)?token=\(token)", host: "rebound.evil.example")] {
                #expect(answer.hasPrefix("HTTP/1.1 403") && !answer.contains("node-a") && !answer.lowercased().contains("location:"), "\(answer)")
            }
            // With a token and from an allowed Origin: sent to the owner.
            #expect(try upgradeAnswer(port: b.port, "\(path)?token=\(token)", ["Origin: https://app.example.com"]).hasPrefix("HTTP/1.1 421"))
            #expect(try getAnswer(port: b.port, path, ["Authorization: Bearer \(token)"]).hasPrefix("HTTP/1.1 307"))
        }

        @Test("Unauthenticated and half-sent requests for canvases another node released make a node that requires tokens claim and load none of them, past --max-canvases or not: all 401")
        func strangersClaimNothing() throws {
            let database = try PostgresServer(fsync: false)
            let canvases = (1...12).map { "flood-\($0)" }
            let a = try clusterNode(database, "node-a", ["--lease-seconds", "60"])
            for canvas in canvases {
                let client = try TestClient(a.url(canvas))
                client.op("o1", "snap", #""x":100,"y":100"#)
                #expect(client.expect(type: "ack") != nil)
            }
            // A drain releases them all: any node may take them at the first ask.
            kill(a.process.processIdentifier, SIGTERM)
            a.process.waitUntilExit()
            let b = try clusterNode(database, "node-b", ["--auth-secret", authSecret, "--admin-token", adminToken, "--max-canvases", "5"])
            #expect(try listedOwners(port: b.port, prefix: "flood-") == Dictionary(uniqueKeysWithValues: canvases.map { ($0, "-") }))
            // Half-sent: the request line only, held open while the rest is asked.
            var halfSent: [Int32] = []
            defer { for fd in halfSent { close(fd) } }
            for canvas in canvases {
                let fd = try connectLoopback(port: b.port, receiveTimeout: 3)
                halfSent.append(fd)
                _ = "GET /v1/canvases/\(canvas) HTTP/1.1\r\n".withCString { send(fd, $0, strlen($0), 0) }
            }
            for canvas in canvases {
                let upgrade = try upgradeAnswer(port: b.port, "/v1/canvases/\(canvas)?client=x")
                #expect(upgrade.hasPrefix("HTTP/1.1 401"), "\(upgrade)")
                let get = try getAnswer(port: b.port, "/v1/canvases/\(canvas)")
                #expect(get.hasPrefix("HTTP/1.1 401"), "\(get)")
                let history = try getAnswer(port: b.port, "/v1/canvases/\(canvas)/history")
                #expect(history.hasPrefix("HTTP/1.1 401"), "\(history)")
            }
            #expect(try listedOwners(port: b.port, prefix: "flood-") == Dictionary(uniqueKeysWithValues: canvases.map { ($0, "-") }))
            let health = try JSONValue.parse(Array(try httpGet(port: b.port, "/healthz").body.utf8))
            #expect(health["canvases"] == .number(0), "\(String(describing: health))")
            // With a token, the normal path claims it.
            let bob = try TestClient(b.url("flood-1", "token=\(try editorToken("flood-1"))"))
            #expect(bob.expect(type: "welcome")?["seq"] == .number(1))
            #expect(try listedOwners(port: b.port, prefix: "flood-1")["flood-1"] == "node-b")
        }

        @Test("[P24] kill -9 of the owner: the other node serves the canvas within 5 s with every op acked, and resent ops apply once")
        func ownerKilled() throws {
            let database = try PostgresServer(fsync: false)
            let a = try clusterNode(database, "node-a"), b = try clusterNode(database, "node-b")
            let writer = try TestClient(a.url("survivor", "client=writer"))
            #expect(writer.expect(type: "welcome") != nil)
            let ops = (1...20).map { (id: "w\($0)", fields: #""op":"snap","x":\#(40 * $0),"y":\#(100 + 30 * ($0 % 3))"#) }
            for op in ops.prefix(10) { writer.send(#"{"type":"op","id":"\#(op.id)",\#(op.fields)}"#) }
            writer.pump { $0.all("ack").count == 10 }
            // Ten more in flight as A dies: some may be durable without their ack.
            for op in ops.suffix(10) { writer.send(#"{"type":"op","id":"\#(op.id)",\#(op.fields)}"#) }
            kill(a.process.processIdentifier, SIGKILL)
            let killed = Date()
            a.process.waitUntilExit()
            writer.pump(timeout: 2) { $0.closed != nil }
            var acked: [String: Int] = [:]
            for ack in writer.all("ack") {
                if case .string(let id)? = ack["id"], case .number(let seq)? = ack["seq"] { acked[id] = Int(seq) }
            }
            #expect(acked.count >= 10)

            // The client reconnects to B, which takes the canvas at once: A's session on the database is gone.
            var again: TestClient?
            while again == nil, Date().timeIntervalSince(killed) < 5 {
                if let client = try? TestClient(b.url("survivor", "client=writer")),
                   client.pump(timeout: 1, until: { c in c.received.contains { $0["type"] == .string("welcome") } || c.closed != nil }),
                   client.closed == nil {
                    again = client
                } else {
                    usleep(100_000)
                }
            }
            let served = Date().timeIntervalSince(killed)
            let resumed = try #require(again, "B did not serve the canvas within 5 s")
            #expect(served < 5, "served \(served) s after the kill")
            // Everything resent with the same ids: acked ones get their original ack, the rest apply once.
            for op in ops { resumed.send(#"{"type":"op","id":"\#(op.id)",\#(op.fields)}"#) }
            resumed.pump(timeout: 10) { c in Set(c.all("ack").compactMap { if case .string(let id)? = $0["id"] { id } else { nil } }).count == 20 }
            for ack in resumed.all("ack") {
                guard case .string(let id)? = ack["id"], case .number(let seq)? = ack["seq"], let first = acked[id] else { continue }
                #expect(Int(seq) == first, "\(id) acked at \(first) by A, at \(seq) by B")
            }
            let logged = try loggedOps(port: b.port, "survivor")
            #expect(logged.map(\.id).sorted() == ops.map(\.id).sorted(), "each op logged exactly once: \(logged.map(\.id))")
            #expect(logged.map(\.seq) == Array(1...logged.count), "seqs contiguous from 1")
            for (id, seq) in acked { #expect(logged.contains { $0.id == id && $0.seq == seq }, "\(id) acked at \(seq) by A") }
        }

        @Test("[P24] SIGSTOP of the owner past its lease: the other node takes the canvas, the paused node's pending op inserts nothing, its clients get 1012, and its /healthz is 503 until it renews")
        func ownerPaused() throws {
            let database = try PostgresServer(fsync: false)
            // A 4 s lease: renewed every 1.3 s, fresh for 2 s after each renewal, so a renewal a little late on a busy
            // machine does not make the node drop its canvases before the pause.
            let a = try clusterNode(database, "node-a", ["--lease-seconds", "4"]), b = try clusterNode(database, "node-b", ["--lease-seconds", "4"])
            let ann = try TestClient(a.url("paused", "client=ann"))
            #expect(ann.expect(type: "welcome") != nil)
            ann.op("before", "snap", #""x":100,"y":100"#)
            #expect(ann.expect(type: "ack")?["seq"] == .number(1))
            // A second session on a raw socket, to read the close frame as sent (libwebsockets 4.1 clients
            // report 1012 as 1002, a code they refuse).
            let raw = try connectLoopback(port: a.port, receiveTimeout: 10)
            defer { close(raw) }
            sendUpgrade(raw, path: "/v1/canvases/paused")
            var rawBytes: [UInt8] = []
            func readRaw(until done: ([(opcode: UInt8, fin: Bool, payload: ArraySlice<UInt8>)]) -> Bool) {
                var buffer = [UInt8](repeating: 0, count: 65536)
                while !done(serverFrames(in: rawBytes)) {
                    let n = recv(raw, &buffer, buffer.count, 0)
                    guard n > 0 else { return }
                    rawBytes += buffer[0..<n]
                }
            }
            readRaw { !$0.isEmpty }

            kill(a.process.processIdentifier, SIGSTOP)
            defer { kill(a.process.processIdentifier, SIGCONT) }
            // Sent while A sleeps: it waits in A's socket, to be read when A wakes.
            ann.op("during", "snap", #""x":300,"y":300"#)
            // B takes the canvas once A's lease has run out by the database's clock (4 s).
            let stopped = Date()
            var bob: TestClient?
            while bob == nil, Date().timeIntervalSince(stopped) < 10 {
                if try upgradeAnswer(port: b.port, "/v1/canvases/paused").hasPrefix("HTTP/1.1 101") {
                    bob = try TestClient(b.url("paused", "client=bob"))
                } else {
                    usleep(200_000)
                }
            }
            let taker = try #require(bob, "B never took the canvas")
            #expect(taker.expect(type: "welcome")?["seq"] == .number(1))
            taker.op("bob1", "snap", #""x":500,"y":500"#)
            #expect(taker.expect(type: "ack")?["seq"] == .number(2))

            // Health checks queued while A sleeps are answered as it wakes, before it has renewed: its lease's
            // row is held locked meanwhile, so no renewal can win the race with them.
            let leaseRow = try database.hold("SELECT 'held' FROM node WHERE id = 'node-a' FOR UPDATE")
            let checks = try (0..<8).map { _ in try connectLoopback(port: a.port, receiveTimeout: 5) }
            for fd in checks { _ = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".withCString { send(fd, $0, strlen($0), 0) } }
            kill(a.process.processIdentifier, SIGCONT)
            var statuses: [String] = []
            for fd in checks {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = recv(fd, &buffer, buffer.count, 0)
                statuses.append(n > 12 ? String(decoding: buffer[9..<12], as: UTF8.self) : "none")
                close(fd)
            }
            #expect(ann.pump(timeout: 10) { $0.closed != nil })
            #expect(ann.closed?.reason == "the canvas moved: reconnect", "\(String(describing: ann.closed))")
            readRaw { $0.contains { $0.opcode == 8 } }
            let closeFrame = serverFrames(in: rawBytes).first { $0.opcode == 8 }
            let code = closeFrame.map { Int($0.payload.first ?? 0) << 8 | Int($0.payload.dropFirst().first ?? 0) }
            #expect(code == 1012, "the close frame on the wire")
            #expect(ann.all("ack").count == 1, "no ack for the op A read after waking")
            // Nothing A had pending is in the log: B's op holds seq 2.
            #expect(try database.superuser("SELECT count(*) FROM oplog WHERE op_id = 'during'") == "0")
            let logged = try loggedOps(port: b.port, "paused")
            #expect(logged.map(\.id) == ["before", "bob1"], "\(logged)")
            #expect(statuses.allSatisfy { $0 == "503" }, "health while waking: \(statuses)")
            leaseRow.release()
            try waitFor(10) { try httpGet(port: a.port, "/healthz").status == 200 }
            // Renewed, A serves again: it points clients to B for the canvas B took.
            #expect(try upgradeAnswer(port: a.port, "/v1/canvases/paused").hasPrefix("HTTP/1.1 421"))
        }

        @Test("An idle canvas unloaded on node A is released, and node B takes it at once, whole")
        func idleReleased() throws {
            let database = try PostgresServer(fsync: false)
            let a = try clusterNode(database, "node-a", ["--idle-unload", "1"]), b = try clusterNode(database, "node-b")
            let ann = try TestClient(a.url("idle", "client=ann"))
            #expect(ann.expect(type: "welcome") != nil)
            ann.op("o1", "snap", #""x":100,"y":100"#)
            #expect(ann.expect(type: "ack")?["seq"] == .number(1))
            ann.close()
            #expect(try upgradeAnswer(port: b.port, "/v1/canvases/idle").hasPrefix("HTTP/1.1 421"))
            // Unloaded after a second with no session, and released: the listing shows no owner.
            try waitFor(10) { try httpGet(port: a.port, "/v1/canvases?prefix=idle").body.contains(#""owner":null"#) }
            #expect(sample(try httpGet(port: a.port, "/metrics").body, "snapboard_cluster_releases_total").map { $0 >= 1 } == true)
            // No lease to wait out: B takes it at the first ask.
            let bob = try TestClient(b.url("idle", "client=bob"))
            let welcome = bob.expect(type: "welcome")
            #expect(welcome?["seq"] == .number(1) && welcome?["shapes"]?[0] != nil, "\(String(describing: welcome))")
            #expect(try upgradeAnswer(port: a.port, "/v1/canvases/idle").hasPrefix("HTTP/1.1 421"))
        }

        @Test("SIGTERM of the owner: its checkpoints are written and its canvases released before its sessions close with 1001, so another node takes them at once")
        func drained() throws {
            let database = try PostgresServer(fsync: false)
            // A long lease: only the release lets B take the canvas within the test.
            let a = try clusterNode(database, "node-a", ["--lease-seconds", "60"]), b = try clusterNode(database, "node-b", ["--lease-seconds", "60"])
            let ann = try TestClient(a.url("drained", "client=ann"))
            #expect(ann.expect(type: "welcome") != nil)
            for i in 1...3 { ann.op("o\(i)", "snap", #""x":\#(100 * i),"y":100"#) }
            #expect(ann.pump { $0.all("ack").count == 3 })
            #expect(try upgradeAnswer(port: b.port, "/v1/canvases/drained").hasPrefix("HTTP/1.1 421"))
            kill(a.process.processIdentifier, SIGTERM)
            #expect(ann.pump(timeout: 10) { $0.closed != nil })
            #expect(ann.closed?.code == 1001, "\(String(describing: ann.closed))")
            // Released by then: B serves it at the first ask, all three ops there.
            let bob = try TestClient(b.url("drained", "client=bob"))
            #expect(bob.expect(type: "welcome")?["seq"] == .number(3))
            a.process.waitUntilExit()
            #expect(a.process.terminationStatus == 0)
        }

        @Test("With --database-url the listing shows each canvas once, with the node that owns it, on every node")
        func listing() throws {
            let database = try PostgresServer(fsync: false)
            let a = try clusterNode(database, "node-a"), b = try clusterNode(database, "node-b")
            for (node, canvas) in [(a, "list-a1"), (a, "list-a2"), (b, "list-b1")] {
                let client = try TestClient(node.url(canvas))
                client.op("o1", "snap", #""x":100,"y":100"#)
                #expect(client.expect(type: "ack") != nil)
            }
            for node in [a, b] {
                let body = try JSONValue.parse(Array(try httpGet(port: node.port, "/v1/canvases?prefix=list-").body.utf8))
                guard case .array(let items)? = body["canvases"] else { Issue.record("no listing"); continue }
                let owners = items.map { item -> String in
                    if case .string(let id)? = item["id"], case .string(let owner)? = item["owner"] { "\(id)@\(owner)" } else { "?" }
                }
                #expect(owners == ["list-a1@node-a", "list-a2@node-a", "list-b1@node-b"], "\(owners)")
            }
        }
    }
}
