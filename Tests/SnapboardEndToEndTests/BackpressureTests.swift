import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

/// A WebSocket client that completes the handshake and then never reads: the slowest consumer there is.
final class StalledReader {
    let fd: Int32

    init(port: Int, path: String) throws {
        fd = try connectLoopback(port: port, receiveBuffer: 4096)
        sendUpgrade(fd, path: path)
        var response: [UInt8] = []
        var byte: UInt8 = 0
        while !String(decoding: response, as: UTF8.self).hasSuffix("\r\n\r\n"), recv(fd, &byte, 1, 0) == 1 { response.append(byte) }
        guard String(decoding: response, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw ServerStartError(output: "no upgrade") }
    }

    deinit { close(fd) }
}

extension EndToEnd {
    @Suite("[P17] Backpressure", .serialized)
    struct BackpressureTests {
        @Test("A reader that stops reading falls behind and is resynced; a fast reader on the same canvas gets every delta in order",
              .disabled(if: underSanitizer, "under a sanitizer the fast reader cannot keep up with 3,000 deltas, and is rightly resynced"))
        func slowConsumer() throws {
            let server = try ServerProcess(["--max-queued-bytes", "262144", "--send-buffer-bytes", "65536", "--ops-per-second", "100000", "--stuck-seconds", "1.5"])
            let stalled = try StalledReader(port: server.port, path: "/v1/canvases/busy")
            let writer = try TestClient(server.url("busy"))
            let reader = try TestClient(server.url("busy"))
            // Both are in the room before the first op (a session joins once the canvas has loaded).
            #expect(writer.expect(type: "welcome") != nil && reader.expect(type: "welcome")?["seq"] == .number(0))
            // About 900 KB of deltas: past the 64 KiB socket buffer and the 256 KiB bound for the stalled reader.
            // The writer sends like a real client, at most 50 ops ahead of its acks: sent all at once, its own
            // acks and deltas would pile up past the bound on a loaded machine, and it would be resynced and
            // then closed with 4000 with ops still unread.
            let burst = 3_000, total = burst + 10
            func write(_ range: Range<Int>) {
                for chunk in stride(from: range.lowerBound, to: range.upperBound, by: 50) {
                    let last = min(chunk + 50, range.upperBound) - 1
                    for i in chunk...last { writer.op("w\(i)", "snap", #""x":\#(i % 1000),"y":\#(i % 700)"#) }
                    _ = writer.expect(type: "ack", timeout: 30) { $0["id"] == .string("w\(last)") }
                }
            }
            write(0..<burst)
            reader.pump(timeout: 60) { Replica($0.received).committed.count >= burst }
            // The stalled reader has taken nothing for longer than the server's patience: the next commits resync it.
            usleep(2_000_000)
            write(burst..<total)
            reader.pump(timeout: 60) { Replica($0.received).committed.count >= total }
            let committed = Replica(reader.received).committed
            let inOrder = committed == Array(1...total)
            #expect(inOrder,
                    "the fast reader got \(committed.count) committed deltas, from \(committed.prefix(3)) to \(committed.suffix(3)); the writer got \(writer.all("reject").count) rejects and was closed: \(String(describing: writer.closed))")
            #expect(reader.all("welcome").count == 1, "the fast reader was never resynced")
            let metrics = try httpGet(port: server.port, "/metrics").body
            let resyncs = metrics.split(separator: "\n").first { $0.hasPrefix("snapboard_resyncs_total ") }
            let closes = metrics.split(separator: "\n").first { $0.hasPrefix("snapboard_slow_closes_total ") }
            #expect(resyncs != "snapboard_resyncs_total 0" || closes != "snapboard_slow_closes_total 0", "\(resyncs ?? "") \(closes ?? "")")
            let truth = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/busy").body)
            let converged = Replica(reader.received).shapes == truth
            #expect(converged, "the fast reader's replica differs from GET")
            _ = stalled
        }

        @Test("[P17] A reader that stops reading while another client drags is resynced: live deltas written as the tick ends stop at the first frame its socket does not take whole")
        func stalledReaderOfLiveDeltas() throws {
            // Any live delta is over the bound, so a reader whose socket takes nothing for 0.5 s is resynced; one
            // whose every frame were handed to libwebsockets, taken or not, would look as if it kept up.
            let server = try ServerProcess(["--max-queued-bytes", "100", "--send-buffer-bytes", "8192", "--stuck-seconds", "0.5"])
            let stalled = try StalledReader(port: server.port, path: "/v1/canvases/live")
            let dragger = try TestClient(server.url("live"))
            #expect(dragger.expect(type: "welcome") != nil)
            dragger.op("s", "snap", #""x":256,"y":192,"shapeId":"q","shape":{"kind":"roundedRect","w":64,"h":64}"#)
            _ = dragger.expect(type: "ack") { $0["id"] == .string("s") }
            dragger.op("g0", "move", #""shape":"q","phase":"begin""#)
            var resyncs = 0.0
            // At 50 updates a second, for at most 30 s: the stalled socket's buffers fill within a few seconds.
            for step in 1...1_500 where resyncs == 0 {
                dragger.op("g\(step)", "move", #""shape":"q","phase":"update","dx":\#(step % 300),"dy":0"#)
                dragger.read(timeout: 0.02)
                if step % 25 == 0 {
                    resyncs = PresenceListWireTests.counter("snapboard_resyncs_total", in: try httpGet(port: server.port, "/metrics").body) ?? 0
                }
            }
            #expect(resyncs > 0, "the stalled reader was never found stuck")
            #expect(dragger.all("welcome").count == 1, "the dragger, which reads, was resynced")
            _ = stalled
        }

        @Test("[P19] An idle canvas unloads from memory and comes back with its shapes on the next join")
        func idleUnload() throws {
            let server = try ServerProcess(["--idle-unload", "0.2"])
            let client = try TestClient(server.url("idle"))
            client.op("a", "snap", #""x":100,"y":100"#)
            _ = client.expect(type: "ack")
            client.close()
            var unloaded = false
            for _ in 0..<50 where !unloaded {
                usleep(50_000)
                unloaded = try httpGet(port: server.port, "/healthz").body.contains(#""canvases":0"#)
            }
            #expect(unloaded)
            let back = try TestClient(server.url("idle"))
            let welcome = back.expect(type: "welcome")
            #expect(welcome?["seq"] == .number(1))
            if case .array(let shapes)? = welcome?["shapes"] { #expect(shapes.count == 1) } else { Issue.record("no shapes") }
        }
    }
}
