import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    /// Text, notes and style (1.7) through a real server process, real sockets and its SQLite op log.
    @Suite("Text, notes and style, over the wire", .serialized)
    struct TextStyleWireTests {
        @Test("[P26][P7][P14] Ann writes a note and styles shapes; Ben sees each commit, is refused while she edits, and his abandoned draft commits; after a SIGKILL the log gives the same canvas")
        func twoClients() throws {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-text-\(UUID().uuidString).sqlite").path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: data + suffix) } }
            let server = try ServerProcess(data: data)
            let ann = try TestClient(server.url("notes", "client=ann&name=ann&revision=4"))
            let ben = try TestClient(server.url("notes", "client=ben&name=ben"))
            let annSession = try #require(ann.expect(type: "welcome")?["session"])
            _ = ben.expect(type: "welcome")

            // A note with text, and a plain shape.
            ann.op("s1", "snap", #""x":300,"y":300,"shapeId":"n","shape":{"kind":"note","text":"Plan <b>&amp;</b>\n✓"}"#)
            ann.op("s2", "snap", #""x":700,"y":700,"shapeId":"r","shape":{"kind":"roundedRect","w":96,"h":96}"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("s2") }
            let note = try #require(ben.expect(type: "delta") { $0["seq"] == .number(1) }?["shapes"]?[0])
            #expect(note["kind"] == .string("note") && note["text"] == .string("Plan <b>&amp;</b>\n✓") && note["w"] == .number(200))
            #expect(note["fill"]?["a"] == .number(1) && note["stroke"] == nil && note["fontSize"] == nil)

            // One style op on both: one commit, both shapes whole in Ben's delta, the fields as sent.
            ann.op("y1", "style", ##""shapes":["n","r"],"fill":"red","stroke":"#1971C2","strokeWidth":3,"opacity":0.5,"fontSize":32"##)
            #expect(ann.expect(type: "ack") { $0["id"] == .string("y1") }?["seq"] == .number(3))
            let styled = try #require(ben.expect(type: "delta") { $0["seq"] == .number(3) })
            guard case .array(let shapes)? = styled["shapes"] else { throw CancellationError() }
            #expect(shapes.map { $0["id"] } == [.string("n"), .string("r")])
            #expect(shapes.allSatisfy { $0["stroke"] == .string("#1971c2") && $0["strokeWidth"] == .number(3)
                && $0["opacity"] == .number(0.5) && $0["fontSize"] == .number(32) })
            #expect(shapes[1]["fill"]?["a"] == .number(0.8) && shapes[0]["text"] == note["text"])

            // Ann edits the note's text: the lease is announced, Ben is refused, her end commits once.
            ann.op("t1", "text", #""shape":"n","phase":"begin""#)
            let lease = try #require(ben.expect(type: "presence") { $0["event"] == .string("lease") && $0["leases"]?["n"] != nil })
            #expect(lease["leases"]?["n"] == annSession)
            ben.op("b1", "text", #""shape":"n","text":"mine""#)
            #expect(ben.expect(type: "reject") { $0["id"] == .string("b1") }?["code"] == .string("shape_locked"))
            ben.op("b2", "move", #""shape":"n","phase":"begin""#)
            #expect(ben.expect(type: "reject") { $0["id"] == .string("b2") }?["code"] == .string("shape_locked"))
            ben.op("b3", "style", #""shapes":["n"],"opacity":1"#)
            #expect(ben.expect(type: "reject") { $0["id"] == .string("b3") }?["code"] == .string("shape_locked"))
            ann.op("t2", "text", #""shape":"n","phase":"update","text":"Plan v""#)
            ann.op("t3", "text", #""shape":"n","phase":"end","text":"Plan v2""#)
            #expect(ann.expect(type: "ack") { $0["id"] == .string("t3") }?["seq"] == .number(4))
            #expect(ben.expect(type: "delta") { $0["seq"] == .number(4) }?["shapes"]?[0]?["text"] == .string("Plan v2"))
            // Drafts are never broadcast: no delta of Ben's carries one.
            #expect(!ben.received.contains { $0["type"] == .string("delta") && $0["shapes"]?[0]?["text"] == .string("Plan v") })

            // Her next shape takes her last style; bad colours and texts are refused and change nothing.
            ann.op("s3", "snap", #""x":500,"y":100,"shapeId":"q""#)
            let q = try #require(ann.expect(type: "delta") { $0["seq"] == .number(5) }?["shapes"]?[0])
            #expect(q["stroke"] == .string("#1971c2") && q["opacity"] == .number(0.5) && q["strokeWidth"] == .number(3))
            ann.op("x1", "style", ##""shapes":["q"],"fill":"#12345""##)
            #expect(ann.expect(type: "reject") { $0["id"] == .string("x1") }?["code"] == .string("bad_style"))
            ann.op("x2", "style", #""shapes":["q"]"#)
            #expect(ann.expect(type: "reject") { $0["id"] == .string("x2") }?["code"] == .string("bad_style"))
            ann.op("x3", "text", #""shape":"q","text":"a\rb""#)
            #expect(ann.expect(type: "reject") { $0["id"] == .string("x3") }?["code"] == .string("bad_text"))
            ann.op("x4", "style", #""shapes":["q"],"opacity":0"#)
            #expect(ann.expect(type: "reject") { $0["id"] == .string("x4") }?["code"] == .string("out_of_range"))
            ann.op("x6", "text", #""shape":"q","text":"same""#)
            #expect(ann.expect(type: "ack") { $0["id"] == .string("x6") }?["seq"] == .number(6))
            ann.op("x7", "text", #""shape":"q","text":"same""#)
            #expect(ann.expect(type: "ack") { $0["id"] == .string("x7") } == .object([
                "type": .string("ack"), "id": .string("x7"), "seq": .number(6), "unchanged": .bool(true)]))

            // Ben opens r's text, types, and leaves: his last draft commits.
            ben.op("b4", "text", #""shape":"r","phase":"begin""#)
            ben.op("b5", "text", #""shape":"r","phase":"update","text":"ben's draft""#)
            _ = ann.expect(type: "presence") { $0["event"] == .string("lease") && $0["leases"]?["r"] != nil }
            ben.close()
            let lapse = try #require(ann.expect(type: "delta") { $0["seq"] == .number(7) })
            #expect(lapse["shapes"]?[0]?["text"] == .string("ben's draft") && lapse["ops"] == .array([]))
            #expect(try schemaProblems(ann.received + ben.received) == nil)

            let before = try JSONValue.parse(Array(try httpGet(port: server.port, "/v1/canvases/notes").body.utf8))
            Glibc.kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()

            let again = try ServerProcess(data: data)
            let after = try JSONValue.parse(Array(try httpGet(port: again.port, "/v1/canvases/notes").body.utf8))
            #expect(after["seq"] == .number(7) && after["shapes"] == before["shapes"])
            let history = try JSONValue.parse(Array(try httpGet(port: again.port, "/v1/canvases/notes/history").body.utf8))
            guard case .array(let ops)? = history["ops"] else { throw CancellationError() }
            #expect(ops.map { $0["op"]?["type"] } == ["create", "create", "edit", "edit", "create", "edit", "edit"].map { .string($0) })
            #expect(ops[3]["op"]?["changes"]?[0]?["look"]?["text"] == .string("Plan v2")
                && ops[3]["op"]?["changes"]?[0]?["before"]?["text"] == .string("Plan <b>&amp;</b>\n✓"))

            // Ann's last change is q's text: her undo puts it back to empty, and keeps q's style.
            let annAgain = try TestClient(again.url("notes", "client=ann&name=ann"))
            _ = annAgain.expect(type: "welcome")
            annAgain.op("u1", "undo")
            let undone = try #require(annAgain.expect(type: "delta") { $0["seq"] == .number(8) }?["shapes"]?[0])
            #expect(annAgain.expect(type: "ack") { $0["id"] == .string("u1") }?["seq"] == .number(8))
            #expect(undone["id"] == .string("q") && undone["text"] == nil && undone["stroke"] == .string("#1971c2"))
        }
    }
}
