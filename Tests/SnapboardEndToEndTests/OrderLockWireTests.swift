import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    /// Z-order and lock (1.6) through a real server process, real sockets and its SQLite op log.
    @Suite("Z-order and lock, over the wire", .serialized)
    struct OrderLockWireTests {
        @Test("[P25][P7] Ann orders and locks; Ben sees both deltas, his move and delete of the locked shape get locked; after a SIGKILL the log gives the same canvas")
        func twoClients() throws {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-order-\(UUID().uuidString).sqlite").path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: data + suffix) } }
            let server = try ServerProcess(data: data)
            let ann = try TestClient(server.url("stack", "client=ann&name=ann"))
            let ben = try TestClient(server.url("stack", "client=ben&name=ben"))
            _ = ben.expect(type: "welcome")
            ann.op("s1", "snap", #""x":256,"y":192,"shapeId":"p","shape":{"kind":"roundedRect","w":96,"h":96}"#)
            ann.op("s2", "snap", #""x":288,"y":192,"shapeId":"q","shape":{"kind":"oval","w":96,"h":96}"#)
            ann.op("s3", "snap", #""x":800,"y":600,"shapeId":"r","shape":{"kind":"triangle","w":96,"h":96}"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("s3") }

            // p to the front: one commit, one delta to Ben with p's new z.
            ann.op("o1", "order", #""shapes":["p"],"to":"front""#)
            let ordered = try #require(ann.expect(type: "ack") { $0["id"] == .string("o1") })
            #expect(ordered == .object(["type": .string("ack"), "id": .string("o1"), "seq": .number(4)]))
            let orderDelta = try #require(ben.expect(type: "delta") { $0["seq"] == .number(4) })
            #expect(orderDelta["ops"] == .array([.string("o1")]) && orderDelta["shapes"]?[0]?["id"] == .string("p")
                && orderDelta["shapes"]?[0]?["z"] == .number(3) && orderDelta["shapes"]?[1] == nil)

            // Lock p and r: one commit, both shapes locked in Ben's delta.
            ann.op("l1", "lock", #""shapes":["p","r"],"locked":true"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("l1") }
            let lockDelta = try #require(ben.expect(type: "delta") { $0["seq"] == .number(5) })
            guard case .array(let locked)? = lockDelta["shapes"] else { throw CancellationError() }
            #expect(locked.map { $0["id"] } == [.string("p"), .string("r")] && locked.allSatisfy { $0["locked"] == .bool(true) })

            // Ben's gestures and delete of a locked shape are refused locked; nothing changes.
            ben.op("b1", "move", #""shape":"p","phase":"begin""#)
            #expect(ben.expect(type: "reject") { $0["id"] == .string("b1") }?["code"] == .string("locked"))
            ben.op("b2", "rotate", #""shape":"r","radians":1"#)
            #expect(ben.expect(type: "reject") { $0["id"] == .string("b2") }?["code"] == .string("locked"))
            ben.op("b3", "delete", #""shapes":["q","p"]"#)
            #expect(ben.expect(type: "reject") { $0["id"] == .string("b3") }?["code"] == .string("locked"))
            // He may restack it; an order that changes nothing is answered unchanged; a bad `to` is an error.
            ben.op("b4", "order", #""shapes":["p"],"to":"front""#)
            #expect(ben.expect(type: "ack") { $0["id"] == .string("b4") } == .object([
                "type": .string("ack"), "id": .string("b4"), "seq": .number(5), "unchanged": .bool(true)]))
            ben.op("b5", "order", #""shapes":["q"],"to":"forward""#)
            #expect(ben.expect(type: "ack") { $0["id"] == .string("b5") }?["seq"] == .number(6))
            ben.op("b6", "lock", #""shapes":["q"],"locked":"yes""#)
            #expect(ben.expect(type: "error") { $0["id"] == .string("b6") }?["code"] == .string("bad_message"))
            _ = ann.expect(type: "delta") { $0["seq"] == .number(6) }
            #expect(try schemaProblems(ann.received + ben.received) == nil)

            let before = try JSONValue.parse(Array(try httpGet(port: server.port, "/v1/canvases/stack").body.utf8))
            Glibc.kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()

            // The op log replays to the same canvas: z's and locks included.
            let again = try ServerProcess(data: data)
            let after = try JSONValue.parse(Array(try httpGet(port: again.port, "/v1/canvases/stack").body.utf8))
            #expect(after["seq"] == .number(6) && after["shapes"] == before["shapes"])
            // Bottom to top: r, then p (brought to the front), then q (forward past p, which overlaps it).
            guard case .array(let all)? = after["shapes"] else { throw CancellationError() }
            #expect(all.map { $0["id"] } == [.string("r"), .string("p"), .string("q")])
            #expect(all.map { $0["locked"] } == [.bool(true), .bool(true), nil])
            let history = try JSONValue.parse(Array(try httpGet(port: again.port, "/v1/canvases/stack/history").body.utf8))
            guard case .array(let ops)? = history["ops"] else { throw CancellationError() }
            #expect(ops.map { $0["op"]?["type"] } == ["create", "create", "create", "order", "lock", "order"].map { .string($0) })
            #expect(ops[4]["op"]?["locked"] == .bool(true))
            // Ben reconnects and, now that Ann unlocks p, moves it.
            let annAgain = try TestClient(again.url("stack", "client=ann&name=ann"))
            let benAgain = try TestClient(again.url("stack", "client=ben&name=ben"))
            _ = benAgain.expect(type: "welcome")
            annAgain.op("l2", "lock", #""shapes":["p"],"locked":false"#)
            _ = benAgain.expect(type: "delta") { $0["seq"] == .number(7) }
            benAgain.op("b7", "move", #""shape":"p","dx":64,"dy":0,"snap":false"#)
            #expect(benAgain.expect(type: "ack") { $0["id"] == .string("b7") }?["seq"] == .number(8))
        }
    }
}
