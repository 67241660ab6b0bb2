import Foundation
import SnapboardLWSClient
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

extension EndToEnd {
    @Suite("Dead peers: pinged, then dropped", .serialized)
    struct KeepaliveTests {
        @Test("A peer that answers nothing is pinged after --ping-seconds and dropped after --idle-timeout; a live one stays")
        func silentPeerIsDropped() throws {
            let server = try ServerProcess(["--ping-seconds", "1", "--idle-timeout", "2"])
            let live = try TestClient(server.url("k"))
            _ = live.expect(type: "welcome")
            // A raw socket that completes the handshake and then never reads a frame or answers a ping.
            let fd = try connectLoopback(port: server.port, receiveTimeout: 5)
            defer { close(fd) }
            sendUpgrade(fd, path: "/v1/canvases/k")
            let started = Date()
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                received += buffer[0..<n]
            }
            let lasted = Date().timeIntervalSince(started)
            #expect(received.starts(with: Array("HTTP/1.1 101".utf8)))
            // After the headers and the welcome: a ping frame (opcode 9, FIN set, unmasked).
            #expect(received.contains(0x89), "no ping before the drop")
            #expect(lasted >= 1.5 && lasted < 4.5, "dropped after \(lasted) s")
            // The client that answers pings (libwebsockets does, as browsers do) is still there.
            live.send(#"{"type":"ping","t":7}"#)
            #expect(live.expect(type: "pong") != nil)
        }
    }

    @Suite("Log floods: a peer cannot make the log grow without bound", .serialized)
    struct LogFloodTests {
        @Test("200 requests whose headers overflow libwebsockets' buffer write a bounded number of log lines")
        func oversizedHeaders() throws {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-stderr-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let server = try ServerProcess(errorLog: log)
            let padding = "X-Padding: " + String(repeating: "p", count: 20_000)
            for _ in 0..<200 { _ = try? SnapboardLWSClient.httpGet(port: server.port, "/healthz", headers: [padding], timeout: 1) }
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
            let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            // In the server's own format: a timestamp, the level, then the label.
            let fromLibwebsockets = lines.filter { $0.contains(" libwebsockets: ") }
            #expect(fromLibwebsockets.allSatisfy { $0.first?.isNumber == true }, "\(fromLibwebsockets.prefix(2))")
            #expect(!fromLibwebsockets.isEmpty, "the overflow is logged")
            #expect(fromLibwebsockets.count <= 21, "\(fromLibwebsockets.count) lines")
        }
    }
}
