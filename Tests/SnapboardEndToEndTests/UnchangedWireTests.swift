import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    /// An op that changes nothing commits nothing (P6, P14), through a real server and real sockets.
    @Suite("Nothing commits by accident, over the wire", .serialized)
    struct UnchangedWireTests {
        @Test("[P6][P14] A drag brought back to where it began takes no seq: a watcher sees the shape put back live, the sender an unchanged ack, and undo then undoes the change before")
        func dragBackOverTheWire() throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("unchanged", "client=ann&name=ann"))
            let watcher = try TestClient(server.url("unchanged", "name=watcher"))
            _ = watcher.expect(type: "welcome")
            ann.op("s", "snap", #""x":256,"y":192,"shapeId":"q","shape":{"kind":"roundedRect","w":64,"h":64}"#)
            ann.op("t", "snap", #""x":512,"y":384,"shapeId":"r","shape":{"kind":"roundedRect","w":64,"h":64}"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("t") }
            // A real change first: q moves 64 right, to the front (z 2).
            ann.op("m1", "move", #""shape":"q","dx":64,"dy":0,"snap":false"#)
            let moved = try #require(ann.expect(type: "ack") { $0["id"] == .string("m1") })
            #expect(moved["seq"] == .number(3) && moved["unchanged"] == nil)
            // Then r is picked up (brought to the front), dragged out and back to exactly 0, 0, and let go.
            ann.op("g1", "move", #""shape":"r","phase":"begin""#)
            ann.op("g2", "move", #""shape":"r","phase":"update","dx":70,"dy":-40"#)
            ann.op("g3", "move", #""shape":"r","phase":"update","dx":0,"dy":0"#)
            ann.op("g4", "move", #""shape":"r","phase":"end","dx":0,"dy":0"#)
            let unchanged = try #require(ann.expect(type: "ack") { $0["id"] == .string("g4") })
            #expect(unchanged == .object(["type": .string("ack"), "id": .string("g4"), "seq": .number(3), "unchanged": .bool(true)]))
            let back = try #require(watcher.expect(type: "delta") {
                guard $0["live"] == .bool(true), case .array(let ops)? = $0["ops"] else { return false }
                return ops.contains(.string("g4"))
            })
            guard case .array(let shapes)? = back["shapes"] else { throw CancellationError() }
            let r = shapes.first { $0["id"] == .string("r") }
            #expect(back["seq"] == .number(3) && r?["x"] == .number(512) && r?["y"] == .number(384) && r?["z"] == .number(1))
            #expect(!watcher.all("delta").contains { $0["live"] == .bool(false) && $0["seq"] == .number(4) })
            #expect(try schemaProblems([unchanged, back]) == nil)
            // The undo after it undoes the move of q, the last real change: seq 4, q back at (256, 192).
            ann.op("u1", "undo")
            let undone = try #require(ann.expect(type: "ack") { $0["id"] == .string("u1") })
            #expect(undone["seq"] == .number(4))
            let delta = try #require(watcher.expect(type: "delta") { $0["live"] == .bool(false) && $0["seq"] == .number(4) })
            #expect(delta["shapes"]?[0]?["id"] == .string("q") && delta["shapes"]?[0]?["x"] == .number(256))
        }

        @Test("[P15] An op that changed nothing is answered the same after a SIGKILL and a restart: its resend, after a later op moved the shape, moves nothing")
        func unchangedRememberedAcrossKill() throws {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-unchanged-\(UUID().uuidString).sqlite").path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: data + suffix) } }
            let first = try ServerProcess(data: data)
            let ann = try TestClient(first.url("answered", "client=ann"))
            ann.op("s", "snap", #""x":256,"y":192,"shapeId":"q","shape":{"kind":"roundedRect","w":64,"h":64}"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("s") }
            // Against the left edge, then nudged into it: kept in, it changes nothing, answered at seq 2.
            ann.op("e", "move", #""shape":"q","dx":-600,"dy":0,"snap":false"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("e") }
            ann.op("n", "move", #""shape":"q","dx":-5,"dy":0,"snap":false"#)
            let unchanged = try #require(ann.expect(type: "ack") { $0["id"] == .string("n") })
            #expect(unchanged == .object(["type": .string("ack"), "id": .string("n"), "seq": .number(2), "unchanged": .bool(true)]))
            // Away from the edge: the same nudge would now move it.
            ann.op("m", "move", #""shape":"q","dx":128,"dy":0,"snap":false"#)
            let moved = try #require(ann.expect(type: "ack") { $0["id"] == .string("m") })
            #expect(moved["seq"] == .number(3))
            Glibc.kill(first.process.processIdentifier, SIGKILL)
            first.process.waitUntilExit()

            let second = try ServerProcess(data: data)
            let again = try TestClient(second.url("answered", "client=ann"))
            let welcome = try #require(again.expect(type: "welcome"))
            #expect(welcome["seq"] == .number(3))
            // The same op id again, as a client resends what it never saw answered: the same answer, no seq.
            again.op("n", "move", #""shape":"q","dx":-5,"dy":0,"snap":false"#)
            let answer = try #require(again.expect(type: "ack") { $0["id"] == .string("n") })
            #expect(answer == .object(["type": .string("ack"), "id": .string("n"), "seq": .number(2), "unchanged": .bool(true)]))
            let canvas = try JSONValue.parse(Array(try httpGet(port: second.port, "/v1/canvases/answered").body.utf8))
            #expect(canvas["seq"] == .number(3))
        }
    }
}
