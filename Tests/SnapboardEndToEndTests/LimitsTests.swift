import Foundation
import SnapboardProtocol
import SnapboardLWSClient
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

extension EndToEnd {
    /// TLS, and every limit answered at the door as documented.
    @Suite("TLS and limits, end to end", .serialized)
    struct LimitsTests {
        /// A self-signed certificate for `names` (DNS names or IP addresses), made with the `openssl`
        /// command in a fresh folder: (certificate, key).
        static func selfSigned(_ names: [String]) throws -> (certificate: String, key: String) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let certificate = folder.appendingPathComponent("cert.pem").path, key = folder.appendingPathComponent("key.pem").path
            let alternatives = names.map { $0.first!.isNumber ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
            let status = try runCommand(URL(fileURLWithPath: "/usr/bin/openssl"), ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                                      "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=\(names[0])",
                                                      "-addext", "subjectAltName=\(alternatives)"]).status
            #expect(status == 0, "openssl req")
            return (certificate, key)
        }

        /// The status an upgrade to `canvas` gets.
        static func upgradeStatus(_ server: ServerProcess, _ canvas: String) throws -> Int {
            try httpGet(port: server.port, "/v1/canvases/\(canvas)", headers: AccessTests.upgrade).status
        }

        @Test("--tls-cert and --tls-key serve wss:// and https://, verified against the certificate; plain ws:// and unverified clients fail")
        func tls() throws {
            let (certificate, key) = try Self.selfSigned(["localhost", "127.0.0.1"])
            let server = try ServerProcess(["--tls-cert", certificate, "--tls-key", key])
            let secure = "wss://127.0.0.1:\(server.port)/v1/canvases/secret"
            // Verified against the certificate: the whole protocol works.
            let ada = TestClient(socket: try WebSocketClient(url: secure, caFile: certificate))
            try ada.socket.connect()
            _ = ada.expect(type: "welcome")
            ada.op("t1", "snap", #""x":100,"y":100"#)
            #expect(ada.expect(type: "ack")?["seq"] == .number(1))
            // By name as well as by address.
            let byName = try WebSocketClient(url: "wss://localhost:\(server.port)/v1/canvases/secret", caFile: certificate)
            #expect(throws: Never.self) { try byName.connect() }
            // The system's trust store does not know a self-signed certificate.
            #expect(throws: WebSocketError.self) { try WebSocketClient(url: secure).connect() }
            // Plain WebSockets and plain HTTP are not served on a TLS port.
            #expect(throws: WebSocketError.self) { try WebSocketClient(url: server.url("secret")).connect(timeout: 3) }
            #expect((try? httpGet(port: server.port, "/healthz", timeout: 3))?.status ?? 0 == 0)
            // curl, verifying, reads the canvas over https://.
            let fetched = try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "--cacert", certificate, "https://localhost:\(server.port)/v1/canvases/secret"])
            #expect(fetched.status == 0 && fetched.output.contains(#""seq":1"#))
            #expect(try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "https://localhost:\(server.port)/healthz"]).status != 0)
            // The terminal client, trusting the certificate with --ca-file, draws the canvas; without it, it fails.
            let client = serverBinary.deletingLastPathComponent().appendingPathComponent("snapboard-client")
            let dump = try runCommand(client, [secure, "--ca-file", certificate, "--dump", "--timeout", "5"])
            #expect(dump.status == 0 && dump.output.contains("canvas secret seq 1"), "\(dump.output)")
            #expect(try runCommand(client, [secure, "--dump", "--timeout", "2"]).status != 0)
            // The container's health check asks over https when the server's certificate is in its
            // environment, and trusts only that certificate; plain HTTP gets no answer from a TLS server.
            let port = ["--port", "\(server.port)"]
            let healthy = try runServerCommand(["health"] + port, environment: ["SNAPBOARD_TLS_CERT": certificate])
            #expect(healthy.status == 0 && healthy.output.contains(#""status":"ok""#), "\(healthy.output)")
            let (other, _) = try Self.selfSigned(["localhost"])
            #expect(try runServerCommand(["health", "--tls-cert", other] + port, withErrors: true).status == 1)
            #expect(try runServerCommand(["health"] + port, withErrors: true).status == 1)
        }

        @Test("--conformance-echo (for make conformance): a WebSocket on / gets its text and binary messages back; without it, / upgrades get 404")
        func conformanceEcho() throws {
            let server = try ServerProcess(["--conformance-echo"])
            let echo = try WebSocketClient(url: "ws://127.0.0.1:\(server.port)/")
            try echo.connect()
            echo.send(Array("not JSON at all".utf8))
            echo.send([0, 1, 2, 255], binary: true, fragments: 2)
            #expect(echo.next(timeout: 5) == .message(Array("not JSON at all".utf8), binary: false))
            #expect(echo.next(timeout: 5) == .message([0, 1, 2, 255], binary: true))
            echo.close()
            let plain = try ServerProcess()
            #expect(try httpGet(port: plain.port, "/", headers: AccessTests.upgrade).status == 404)
        }

        @Test("A certificate for another name fails verification even when trusted; a key that does not match exits with a clear error")
        func tlsNameAndPair() throws {
            let (other, otherKey) = try Self.selfSigned(["board.example.com"])
            let server = try ServerProcess(["--tls-cert", other, "--tls-key", otherKey])
            #expect(throws: WebSocketError.self) {
                try WebSocketClient(url: "wss://127.0.0.1:\(server.port)/v1/canvases/x", caFile: other).connect(timeout: 3)
            }
            let (mine, _) = try Self.selfSigned(["localhost"])
            #expect(throws: ServerStartError.self) { _ = try ServerProcess(["--tls-cert", mine, "--tls-key", otherKey]) }
            #expect(try runServerCommand(["--tls-cert", mine]).status != 0)
        }

        @Test("Connections per IP (429), in all (503), per canvas (503) and canvases loaded (503), each counted; room is made again as sessions leave")
        func connectionLimits() throws {
            let perIP = try ServerProcess(["--max-connections-per-ip", "2"])
            let first = try TestClient(perIP.url("a")), second = try TestClient(perIP.url("b"))
            _ = (first.expect(type: "welcome"), second.expect(type: "welcome"))
            #expect(try Self.upgradeStatus(perIP, "c") == 429)
            #expect(try httpGet(port: perIP.port, "/metrics").body.contains(#"snapboard_refused_total{reason="ip_connections"} 1"#))
            // Once one leaves, there is room again (the server may take a moment to see it go).
            first.close()
            #expect(first.pump(timeout: 5) { $0.closed != nil })
            try waitFor { try Self.upgradeStatus(perIP, "c") == 101 }

            let total = try ServerProcess(["--max-connections", "1"])
            let only = try TestClient(total.url("a"))
            _ = only.expect(type: "welcome")
            #expect(try Self.upgradeStatus(total, "b") == 503)
            // HTTP is still answered: the limit is on WebSockets.
            #expect(try httpGet(port: total.port, "/healthz").status == 200)

            let perCanvas = try ServerProcess(["--max-connections-per-canvas", "1"])
            let one = try TestClient(perCanvas.url("a"))
            _ = one.expect(type: "welcome")
            #expect(try Self.upgradeStatus(perCanvas, "a") == 503)
            #expect(try Self.upgradeStatus(perCanvas, "b") == 101)

            let canvases = try ServerProcess(["--max-canvases", "1"])
            let holder = try TestClient(canvases.url("a"))
            _ = holder.expect(type: "welcome")
            holder.op("h1", "snap", #""x":100,"y":100"#)
            _ = holder.expect(type: "ack")
            #expect(try Self.upgradeStatus(canvases, "b") == 503)
            // Another session on the loaded canvas is fine.
            #expect(try Self.upgradeStatus(canvases, "a") == 101)
            let metrics = try httpGet(port: canvases.port, "/metrics").body
            #expect(metrics.contains(#"snapboard_refused_total{reason="canvases"} 1"#))
            #expect(metrics.contains(#"snapboard_limit{name="canvases"} 1"#))
        }

        @Test("--ops-per-second-per-ip: sessions from one address share one budget; past it their ops get rate_limited")
        func opsPerAddress() throws {
            let server = try ServerProcess(["--ops-per-second-per-ip", "5"])
            let ann = try TestClient(server.url("ip-a")), ben = try TestClient(server.url("ip-b"))
            _ = (ann.expect(type: "welcome"), ben.expect(type: "welcome"))
            for n in 0..<4 {
                ann.op("a\(n)", "snap", #""x":\#(100 + 100 * n),"y":100"#)
                ben.op("b\(n)", "snap", #""x":\#(100 + 100 * n),"y":100"#)
            }
            #expect(ann.pump { $0.all("ack").count + $0.all("reject").count == 4 })
            #expect(ben.pump { $0.all("ack").count + $0.all("reject").count == 4 })
            let acks = ann.all("ack").count + ben.all("ack").count
            let limited = (ann.all("reject") + ben.all("reject")).filter { $0["code"] == .string("rate_limited") }.count
            // Eight ops within a few milliseconds against five a second from the one address.
            #expect(acks >= 5 && acks <= 6 && acks + limited == 8, "\(acks) acked, \(limited) rate_limited")
            #expect(try httpGet(port: server.port, "/metrics").body.contains(#"snapboard_refused_total{reason="ip_ops"} \#(limited)"#))
        }

        @Test("--max-shapes: snaps past it get canvas_full and the canvas is unchanged; --handshake-timeout drops a silent connection")
        func shapesAndHandshake() throws {
            let server = try ServerProcess(["--max-shapes", "2", "--handshake-timeout", "1"])
            let ada = try TestClient(server.url("small"))
            _ = ada.expect(type: "welcome")
            for (i, x) in [100, 200, 300].enumerated() { ada.op("s\(i)", "snap", #""x":\#(x),"y":100"#) }
            // The answers may come in any order: the reject at once, the acks once the commits are durable.
            #expect(ada.pump { $0.all("ack").count == 2 && !$0.all("reject").isEmpty })
            #expect(ada.all("reject").map { $0["id"] } == [.string("s2")])
            #expect(ada.all("reject").first?["code"] == .string("canvas_full"))
            #expect(try httpGet(port: server.port, "/v1/canvases/small").body.contains(#""seq":2"#))
            // A connection that never sends its request is closed after the handshake timeout.
            let fd = try connectLoopback(port: server.port, receiveTimeout: 6)
            defer { Glibc.close(fd) }
            let started = Date()
            var byte: UInt8 = 0
            #expect(recv(fd, &byte, 1, 0) == 0, "the server closes the connection")
            #expect(Date().timeIntervalSince(started) < 5)
        }

        /// Opens `count` connections that send nothing, and counts those answered 503 (for want of descriptors)
        /// within half a second: the rest stay open until the handshake timeout.
        static func holdConnections(_ server: ServerProcess, _ count: Int) throws -> (held: [Int32], refused: Int) {
            var held: [Int32] = []
            for _ in 0..<count { held.append(try connectLoopback(port: server.port)) }
            usleep(500_000)
            var refused = 0
            for fd in held {
                var buffer = [UInt8](repeating: 0, count: 512)
                let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n > 0, String(decoding: buffer.prefix(n), as: UTF8.self).hasPrefix("HTTP/1.1 503") { refused += 1 }
            }
            return (held, refused)
        }

        @Test("Out of file descriptors: new connections get 503 at once, nothing spins, the log stays short, clients already in keep working, and new ones get in once descriptors free up")
        func descriptorExhaustion() throws {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-fd-\(UUID().uuidString).log").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let server = try ServerProcess(["--log-level", "info"], errorLog: log, launcher: ["/usr/bin/prlimit", "--nofile=128:128", "--"])
            let ada = try TestClient(server.url("busy"))
            _ = ada.expect(type: "welcome")
            let cpuBefore = server.sampler.cpuSeconds() ?? 0
            // 200 connections that never send a request hold descriptors until the handshake timeout.
            var held: [Int32]
            let refused: Int
            (held, refused) = try Self.holdConnections(server, 200)
            defer { for fd in held { Glibc.close(fd) } }
            #expect(refused >= 50, "refused \(refused) of 200")
            // The client already in works on.
            ada.op("a1", "snap", #""x":100,"y":100"#)
            #expect(ada.expect(type: "ack")?["seq"] == .number(1))
            // Nothing spins: a second of wall time with the descriptors held costs well under a second of CPU.
            sleep(1)
            let cpu = (server.sampler.cpuSeconds() ?? 0) - cpuBefore
            #expect(cpu < 0.5, "\(cpu) s of CPU")
            // One warning, not one per connection.
            let lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n") ?? []
            #expect(lines.filter { $0.contains("out of file descriptors") }.count == 1)
            #expect(lines.count < 10, "\(lines)")
            // Once the held connections go, new clients get in.
            for fd in held { Glibc.close(fd) }
            held.removeAll()
            try waitFor { try httpGet(port: server.port, "/healthz").status == 200 }
            let bob = try TestClient(server.url("busy"))
            #expect(bob.expect(type: "welcome")?["seq"] == .number(1))
            #expect(try httpGet(port: server.port, "/metrics").body.contains(#"snapboard_refused_total{reason="descriptors"} \#(refused)"#))
        }

        @Test("Closed with 1008 or 1009 while it keeps sending, a client reading late still gets the close frame and an orderly end, never a reset",
              arguments: [1008, 1009])
        func closingHandshakeUnderFire(code: Int) throws {
            let server = try ServerProcess(["--max-message-bytes", "4096"])
            let fd = try connectLoopback(port: server.port)
            defer { Glibc.close(fd) }
            sendUpgrade(fd, path: "/v1/canvases/fire")
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            var ended: Int32?  // 0 for an orderly end, else the errno
            func read() {
                while ended == nil {
                    let n = recv(fd, &buffer, buffer.count, 0)
                    if n > 0 { received += buffer[0..<n]; continue }
                    if n == 0 { ended = 0 } else if errno != EAGAIN { ended = errno }
                    return
                }
            }
            // 25 frames that are not JSON (the 21st closes the session with 1008), or one over the size cap
            // (1009). Keep sending for half a second without reading, as a busy client would: a reset now
            // would throw away the close frame.
            if code == 1008 {
                for _ in 0..<25 { _ = Self.sendMasked(fd, Array("junk".utf8)) }
            } else {
                _ = Self.sendMasked(fd, Array(repeating: UInt8(ascii: "x"), count: 5000))
            }
            var resets = 0
            let until = Date().addingTimeInterval(0.5)
            while Date() < until {
                if !Self.sendMasked(fd, Array(#"{"type":"ping","t":1}"#.utf8)), errno == EPIPE || errno == ECONNRESET { resets += 1 }
                usleep(2_000)
            }
            // The server's socket stays open, reading what still comes: no send met a reset.
            #expect(resets == 0, "\(resets) sends met a reset")
            let deadline = Date().addingTimeInterval(5)
            while ended == nil, Date() < deadline { read(); usleep(10_000) }
            #expect(Self.closeCode(in: received) == UInt16(code))
            #expect(ended == 0, "the connection ended with errno \(ended.map(String.init) ?? "none") instead of an orderly close")
        }

        @Test("6,000 connect, snap, leave cycles over 300 canvases, all unloaded: RSS comes back within 10 MB of where it started",
              .disabled(if: underSanitizer, "a sanitizer's allocator and shadow memory are what RSS would measure"))
        func memoryComesBack() throws {
            let server = try ServerProcess(["--idle-unload", "1", "--durability", "normal"])
            // Warm up the allocator, the store and the first canvases before measuring from there.
            try Self.cycles(server, 0..<300, canvases: 300)
            try waitFor(20) { try httpGet(port: server.port, "/healthz").body.contains(#""canvases":0"#) }
            let before = server.sampler.rssMB() ?? 0
            try Self.cycles(server, 300..<6300, canvases: 300)
            let peak = server.sampler.rssMB() ?? 0
            try waitFor(20) { try httpGet(port: server.port, "/healthz").body.contains(#""canvases":0"#) }
            // The tick hands freed memory back at most every 10 s after canvases were unloaded.
            var after = peak
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline, after - before >= 10 {
                usleep(250_000)
                after = server.sampler.rssMB() ?? 0
            }
            print("memoryComesBack: RSS \(before) MB before, \(peak) MB at the end of the cycles, \(after) MB once unloaded")
            #expect(after - before < 10, "RSS \(before) → \(after) MB")
        }

        /// Connect, snap, wait for the ack, close: one session per cycle, on canvas `i % canvases`.
        static func cycles(_ server: ServerProcess, _ range: Range<Int>, canvases: Int) throws {
            var buffer = [UInt8](repeating: 0, count: 65536)
            for i in range {
                let fd = try connectLoopback(port: server.port, receiveTimeout: 5)
                defer { Glibc.close(fd) }
                sendUpgrade(fd, path: "/v1/canvases/mem-\(i % canvases)?client=c\(i)")
                _ = sendMasked(fd, Array(#"{"type":"op","id":"o\#(i)","op":"snap","x":\#(i % 1000),"y":\#(i % 700)}"#.utf8))
                var seen: [UInt8] = []
                while seen.firstRange(of: Array(#""type":"ack""#.utf8)) == nil && seen.firstRange(of: Array(#""type":"reject""#.utf8)) == nil {
                    let n = recv(fd, &buffer, buffer.count, 0)
                    guard n > 0 else { break }
                    seen += buffer[0..<n]
                }
            }
        }

        /// Writes one masked text frame (a client's), without waiting; false when the socket refused it.
        static func sendMasked(_ fd: Int32, _ payload: [UInt8]) -> Bool {
            precondition(payload.count < 65536)
            let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            let length: [UInt8] = payload.count < 126 ? [0x80 | UInt8(payload.count)] : [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
            let frame = [0x81] + length + mask + payload.enumerated().map { $1 ^ mask[$0 % 4] }
            return send(fd, frame, frame.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) == frame.count
        }

        /// The code of the first close frame in `bytes`: an HTTP response's head, then server frames.
        static func closeCode(in bytes: [UInt8]) -> UInt16? {
            guard let close = serverFrames(in: bytes).first(where: { $0.opcode == 8 }).map({ Array($0.payload) }), close.count >= 2 else { return nil }
            return UInt16(close[0]) << 8 | UInt16(close[1])
        }
    }
}
