import Foundation
import SnapboardProtocol
import SnapboardServer
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

extension EndToEnd {
    /// One process on several cores, each shard a service thread with its own canvases.
    @Suite("Several shards in one process (--shards), end to end", .serialized)
    struct ShardingTests {
        /// `perShard` canvas ids owned by each of `count` shards, shard by shard.
        static func canvases(_ count: Int, perShard: Int = 1) -> [[String]] {
            var found = [[String]](repeating: [], count: count)
            var i = 0
            while found.contains(where: { $0.count < perShard }) {
                let id = "board-\(i)"
                let shard = Shards.owner(of: id, among: count)
                if found[shard].count < perShard { found[shard].append(id) }
                i += 1
            }
            return found
        }

        /// Everything the server sends on a raw socket until it closes it, or sends `until`, or `timeout`
        /// seconds pass.
        static func readToEnd(_ fd: Int32, until: String? = nil, timeout: Double = 5) -> String {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                bytes += buffer[..<n]
                if let until, String(decoding: bytes, as: UTF8.self).contains(until) { break }
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        @Test("Each canvas lives on one shard: its clients see each other, a shutdown drains every shard, and the shared journal keeps every canvas")
        func canvasesAcrossShards() throws {
            let server = try ServerProcess(["--shards", "3"])
            let names = Self.canvases(3, perShard: 2).flatMap { $0 }
            var pairs: [(TestClient, TestClient)] = []
            for name in names {
                let (a, b) = (try TestClient(server.url(name)), try TestClient(server.url(name)))
                _ = a.expect(type: "welcome")
                _ = b.expect(type: "welcome")
                pairs.append((a, b))
            }
            for (i, (a, b)) in pairs.enumerated() {
                a.op("s\(i)", "snap", #""x":\#(100 + 10 * i),"y":100"#)
                #expect(a.expect(type: "ack")?["seq"] == .number(1))
                #expect(b.expect(type: "delta") { $0["seq"] == .number(1) } != nil, "\(names[i])")
            }
            // Every shard holds two of the canvases and their four sessions; the whole adds up.
            let metrics = try httpGet(port: server.port, "/metrics").body
            for shard in 0..<3 {
                #expect(metrics.contains("snapboard_connections{shard=\"\(shard)\"} 4\n"), "\(metrics.prefix(400))")
                #expect(metrics.contains("snapboard_canvases_loaded{shard=\"\(shard)\"} 2\n"))
            }
            #expect(metrics.contains("snapboard_shards 3\n") && metrics.contains("snapboard_op_ack_seconds_count 6\n"))
            let health = try JSONValue.parse(Array(try httpGet(port: server.port, "/healthz").body.utf8))
            #expect(health["connections"] == .number(12) && health["canvases"] == .number(6) && health["shards"] == .number(3))
            // The listing reads storage, and asks each canvas's shard what it holds.
            let listing = try JSONValue.parse(Array(try httpGet(port: server.port, "/v1/canvases").body.utf8))
            guard case .array(let listed)? = listing["canvases"] else { Issue.record("no listing"); return }
            #expect(listed.count == 6 && listed.allSatisfy { $0["loaded"] == .bool(true) && $0["shapes"] == .number(1) })

            // SIGTERM: every shard closes its sessions with 1001, and the process exits.
            #expect(server.terminate() == 0)
            for (a, b) in pairs {
                for client in [a, b] {
                    client.pump(timeout: 2) { $0.closed != nil }
                    #expect(client.closed?.code == 1001)
                }
            }
            // Served again with another number of shards, each canvas is where its id now hashes, as it was.
            let again = try ServerProcess(["--shards", "2"], data: server.dataPath)
            for name in names {
                let canvas = try JSONValue.parse(Array(try httpGet(port: again.port, "/v1/canvases/\(name)").body.utf8))
                #expect(canvas["seq"] == .number(1))
                guard case .array(let shapes)? = canvas["shapes"] else { Issue.record("no shapes in \(name)"); continue }
                #expect(shapes.count == 1)
            }
        }

        @Test("Only a connection's first request is routed: a later one for another shard's canvas gets 307 (HTTP) or 421 (upgrade) and a close")
        func misrouted() throws {
            let server = try ServerProcess(["--shards", "2"])
            let owned = Self.canvases(2)
            let (first, other) = (owned[0][0], owned[1][0])
            let fd = try connectLoopback(port: server.port, receiveTimeout: 5)
            defer { close(fd) }
            let requests = "GET /v1/canvases/\(first) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                + "GET /v1/canvases/\(other)?at=0&name=Ada%20L HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            _ = requests.withCString { send(fd, $0, strlen($0), 0) }
            let answers = Self.readToEnd(fd)
            // The first is its shard's (the canvas was never stored); the second is sent to a new connection.
            #expect(answers.hasPrefix("HTTP/1.1 404"), "\(answers)")
            #expect(answers.contains("HTTP/1.1 307") && answers.contains("location: /v1/canvases/\(other)?at=0&name=Ada%20L\r\n"), "\(answers)")
            // Followed, on a new connection, it reaches the right shard (a 404 too: nothing stored yet).
            #expect(try httpGet(port: server.port, "/v1/canvases/\(other)").status == 404)

            // An upgrade after a request, to another shard's canvas.
            let upgrade = try connectLoopback(port: server.port, receiveTimeout: 5)
            defer { close(upgrade) }
            _ = "GET /v1/canvases/\(first) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".withCString { send(upgrade, $0, strlen($0), 0) }
            usleep(200_000)
            sendUpgrade(upgrade, path: "/v1/canvases/\(other)")
            // (libwebsockets closes a refused upgrade only after a while: the answer is what counts.)
            let refused = Self.readToEnd(upgrade, until: "reconnect")
            #expect(refused.hasPrefix("HTTP/1.1 404") && refused.contains("HTTP/1.1 421") && !refused.contains("HTTP/1.1 101"), "\(refused)")

            // A canvas created without an id is named after one of the shard's own; one whose body names
            // another shard's canvas is sent to its path.
            let created = try http(port: server.port, "POST", "/v1/canvases", body: "{}")
            #expect(created.status == 201)
            let posted = try http(port: server.port, "POST", "/v1/canvases", body: #"{"id":"\#(other)"}"#)
            #expect(posted.status == 201 || posted.status == 307, "\(posted)")
        }

        @Test("The connection limits count every shard's connections")
        func limitsAcrossShards() throws {
            let server = try ServerProcess(["--shards", "2", "--max-connections", "2"])
            let owned = Self.canvases(2)
            let a = try TestClient(server.url(owned[0][0]))
            let b = try TestClient(server.url(owned[1][0]))
            _ = a.expect(type: "welcome")
            _ = b.expect(type: "welcome")
            for canvas in [owned[0][0], owned[1][0]] {
                #expect(try LimitsTests.upgradeStatus(server, canvas) == 503)
            }
            b.close()
            try waitFor { try LimitsTests.upgradeStatus(server, owned[0][0]) == 101 }
            #expect(try httpGet(port: server.port, "/metrics").body.contains("snapboard_refused_total{shard=\"1\",reason=\"connections\"} 1\n"))
        }

        @Test("The acceptor closes a connection that sends no request line within the handshake timeout, whole or in part")
        func silentConnections() throws {
            let server = try ServerProcess(["--shards", "2", "--handshake-timeout", "1"])
            let silent = try connectLoopback(port: server.port, receiveTimeout: 5)
            defer { close(silent) }
            let partial = try connectLoopback(port: server.port, receiveTimeout: 5)
            defer { close(partial) }
            _ = "GET /v1/canvases/a".withCString { send(partial, $0, strlen($0), 0) }
            let started = Date()
            var byte: UInt8 = 0
            #expect(recv(silent, &byte, 1, 0) == 0)
            #expect(recv(partial, &byte, 1, 0) == 0)
            #expect(Date().timeIntervalSince(started) < 4)
            // The server serves on.
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
        }

        @Test("Out of file descriptors, the acceptor answers new connections 503 at once and logs it once; clients already in keep working")
        func descriptorsAtTheAcceptor() throws {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-fd-\(UUID().uuidString).log").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let server = try ServerProcess(["--shards", "2", "--log-level", "info"], errorLog: log,
                                           launcher: ["/usr/bin/prlimit", "--nofile=128:128", "--"])
            let ada = try TestClient(server.url("busy"))
            _ = ada.expect(type: "welcome")
            var held: [Int32]
            let refused: Int
            (held, refused) = try LimitsTests.holdConnections(server, 200)
            defer { for fd in held { close(fd) } }
            #expect(refused >= 50, "refused \(refused) of 200")
            ada.op("a1", "snap", #""x":100,"y":100"#)
            #expect(ada.expect(type: "ack")?["seq"] == .number(1))
            let lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n") ?? []
            #expect(lines.filter { $0.contains("out of file descriptors") }.count == 1, "\(lines)")
            for fd in held { close(fd) }
            held.removeAll()
            try waitFor { try httpGet(port: server.port, "/healthz").status == 200 }
            let bob = try TestClient(server.url("busy"))
            #expect(bob.expect(type: "welcome")?["seq"] == .number(1))
            #expect(try httpGet(port: server.port, "/metrics").body.contains(#"snapboard_refused_total{shard="0",reason="descriptors"} \#(refused)"#))
        }

        @Test("--shards needs plain HTTP: with TLS the server refuses to start")
        func tlsRefused() throws {
            let (certificate, key) = try LimitsTests.selfSigned(["localhost"])
            let run = try runServerCommand(["--port", "0", "--data", ":memory:", "--shards", "2", "--tls-cert", certificate, "--tls-key", key], withErrors: true)
            #expect(run.status != 0 && run.output.contains("--shards needs plain HTTP"), "\(run.output)")
        }
    }
}
