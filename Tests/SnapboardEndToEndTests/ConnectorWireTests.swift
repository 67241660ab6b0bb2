import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    /// Groups, duplicates and connectors (1.7, P27, P28) through a real server process, real sockets and its
    /// SQLite op log.
    @Suite("Groups, duplicates and connectors, over the wire", .serialized)
    struct ConnectorWireTests {
        @Test("[P27][P28] Ann draws an arrow between two shapes and groups them; Ben's move carries the arrow live and in the same commit; a duplicate rebinds; after a SIGKILL the log gives the same canvas, and the export draws it")
        func twoClients() throws {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-arrows-\(UUID().uuidString).sqlite").path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: data + suffix) } }
            let server = try ServerProcess(data: data)
            let ann = try TestClient(server.url("flow", "client=ann&name=ann"))
            let ben = try TestClient(server.url("flow", "client=ben&name=ben"))
            _ = ben.expect(type: "welcome")
            ann.op("s1", "snap", #""x":192,"y":192,"shapeId":"p","shape":{"kind":"note","text":"plan"}"#)
            ann.op("s2", "snap", #""x":640,"y":192,"shapeId":"q","shape":{"kind":"roundedRect","w":96,"h":96}"#)
            ann.op("c1", "connect", #""shapeId":"pq","shape":{"kind":"arrow","text":"then"},"from":{"shape":"p","anchor":"right"},"to":{"x":594,"y":190}"#)
            let drawn = try #require(ben.expect(type: "delta") { $0["seq"] == .number(3) })
            #expect(drawn["shapes"]?[0]?["from"] == .object(["shape": .string("p"), "anchor": .string("right")]))
            #expect(drawn["shapes"]?[0]?["to"] == .object(["shape": .string("q"), "anchor": .string("left")]))
            #expect(drawn["shapes"]?[0]?["w"] == .number(300) && drawn["shapes"]?[0]?["text"] == .string("then"))
            ann.op("g1", "group", #""shapes":["p","q"]"#)
            #expect(ann.expect(type: "ack") { $0["id"] == .string("g1") }?["seq"] == .number(4))

            // Ben drags q: his live deltas carry the arrow following; the end commits both at one seq.
            ben.op("m1", "move", #""shape":"q","phase":"begin""#)
            ben.op("m2", "move", #""shape":"q","phase":"update","dx":0,"dy":160,"snap":false"#)
            let live = try #require(ann.expect(type: "delta") { delta in
                delta["live"] == .bool(true) && delta["shapes"]?[1]?["id"] == .string("pq")
            })
            #expect(live["shapes"]?[0]?["id"] == .string("q") && live["shapes"]?[0]?["y"] == .number(352))
            ben.op("m3", "move", #""shape":"q","phase":"end","dx":0,"dy":160,"snap":false"#)
            let moved = try #require(ann.expect(type: "delta") { $0["seq"] == .number(5) })
            guard case .array(let both)? = moved["shapes"] else { throw CancellationError() }
            #expect(both.map { $0["id"] } == [.string("q"), .string("pq")] && moved["live"] == .bool(false))

            // Ann's duplicate of the group and its arrow binds the copied arrow to the copies.
            ann.op("d1", "duplicate", #""shapes":["p","q","pq"],"ids":["p2","q2","pq2"]"#)
            let copies = try #require(ben.expect(type: "delta") { $0["seq"] == .number(6) })
            guard case .array(let copied)? = copies["shapes"], let copy = copied.first(where: { $0["id"] == .string("pq2") }) else {
                throw CancellationError()
            }
            #expect(copied.count == 3 && copy["from"]?["shape"] == .string("p2") && copy["to"]?["shape"] == .string("q2"))
            #expect(try schemaProblems(ann.received + ben.received) == nil)

            let before = try JSONValue.parse(Array(try httpGet(port: server.port, "/v1/canvases/flow").body.utf8))
            Glibc.kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()

            // The op log replays to the same canvas: the arrows where their shapes put them, bound as they were.
            let again = try ServerProcess(data: data)
            let after = try JSONValue.parse(Array(try httpGet(port: again.port, "/v1/canvases/flow").body.utf8))
            #expect(after["seq"] == .number(6) && after["shapes"] == before["shapes"])
            let history = try JSONValue.parse(Array(try httpGet(port: again.port, "/v1/canvases/flow/history").body.utf8))
            guard case .array(let ops)? = history["ops"] else { throw CancellationError() }
            #expect(ops.map { $0["op"]?["type"] } == ["create", "create", "create", "edit", "place", "restore"].map { .string($0) })

            // A client resuming after the restart gets the deltas it missed, replayed from the log: the move's
            // carries the arrow laid again, as it was sent before the crash.
            guard case .string(let epoch)? = ann.received.first(where: { $0["type"] == .string("welcome") })?["epoch"] else { throw CancellationError() }
            let annAgain = try TestClient(again.url("flow", "client=ann&name=ann&since=4&epoch=\(epoch)"))
            #expect(annAgain.expect(type: "welcome")?["resumed"] == .bool(true))
            let replayed = try #require(annAgain.expect(type: "delta") { $0["seq"] == .number(5) })
            #expect(replayed["shapes"] == moved["shapes"])

            // The export draws the note's text and the arrows, lines with heads.
            let svg = try httpGet(port: again.port, "/v1/canvases/flow/export?format=svg").body
            #expect(svg.contains(">plan</tspan>") && svg.contains(">then</tspan>"))
            #expect(svg.components(separatedBy: #"class="connector""#).count == 3 && svg.components(separatedBy: #"class="arrowhead""#).count == 3)
            let png = try httpGet(port: again.port, "/v1/canvases/flow/export?format=png")
            #expect(png.status == 200 && png.body.utf8.count > 1_000)
        }
    }
}
