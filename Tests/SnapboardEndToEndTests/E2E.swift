import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    @Suite("End to end: the real server over real sockets", .serialized)
    struct EndToEndTests {
        @Test("Smoke: two clients on one canvas see the same committed delta, the sender gets its ack")
        func smoke() throws {
            let server = try ServerProcess()
            let a = try TestClient(server.url("smoke", "name=ann"))
            let b = try TestClient(server.url("smoke", "name=ben"))
            #expect(a.expect(type: "welcome")?["seq"] == .number(0))
            #expect(b.expect(type: "welcome") != nil)
            a.op("o1", "snap", #""x":100,"y":100"#)
            let da = a.expect(type: "delta"), db = b.expect(type: "delta")
            #expect(da == db && da?["seq"] == .number(1))
            #expect(a.expect(type: "ack")?["seq"] == .number(1))
            let (status, body) = try httpGet(port: server.port, "/v1/canvases/smoke")
            #expect(status == 200 && body.contains("\"seq\":1"))
        }

        @Test("[P3] A welcome to a big canvas goes out as fragments of one message; 30 clients joining at once while it changes each get all of it")
        func bigWelcome() throws {
            let server = try ServerProcess()
            let writer = try TestClient(server.url("big"))
            // 1,500 shapes, about 200 KB of welcome: more than three of the server's 64 KiB fragments.
            for chunk in stride(from: 0, to: 1_500, by: 50) {
                for i in chunk..<chunk + 50 { writer.op("s\(i)", "snap", #""x":\#(i % 1000),"y":\#(i / 3 % 700)"#) }
                _ = writer.expect(type: "ack", timeout: 30) { $0["id"] == .string("s\(chunk + 49)") }
            }
            // What goes over the wire: a text frame without FIN, continuations, the last with FIN.
            let fd = try connectLoopback(port: server.port, receiveTimeout: 5)
            defer { close(fd) }
            sendUpgrade(fd, path: "/v1/canvases/big")
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while !serverFrames(in: bytes).contains(where: \.fin) {
                let n = recv(fd, &buffer, buffer.count, 0)
                guard n > 0 else { break }
                bytes += buffer[0..<n]
            }
            let frames = serverFrames(in: bytes)
            let message = frames.prefix(through: frames.firstIndex(where: \.fin) ?? frames.endIndex - 1)
            #expect(message.count >= 4, "the welcome came in \(message.count) frames")
            #expect(message.first?.opcode == 1 && message.dropFirst().allSatisfy { $0.opcode == 0 })
            #expect(message.dropLast().allSatisfy { !$0.fin } && message.last?.fin == true)
            let welcome = try JSONValue.parse(message.flatMap(\.payload))
            if case .array(let shapes)? = welcome["shapes"] { #expect(shapes.count == 1_500) } else { Issue.record("no shapes") }
            // A storm: 30 join at once while the canvas keeps changing; each ends with the canvas GET shows.
            var joiners: [TestClient] = []
            for j in 0..<30 {
                joiners.append(try TestClient(server.url("big")))
                if j % 10 == 0 { writer.op("t\(j)", "snap", #""x":\#(j * 7),"y":500"#) }
            }
            _ = writer.expect(type: "ack", timeout: 30) { $0["id"] == .string("t20") }
            let truth = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/big").body)
            #expect(truth.count == 1_503)
            for client in joiners {
                client.pump(timeout: 30) { Replica($0.received).shapes.count == truth.count }
                let replica = Replica(client.received)
                #expect(replica.shapes == truth, "a joiner has \(replica.shapes.count) shapes")
                #expect(client.all("welcome").count == 1)
            }
        }
    }
}
