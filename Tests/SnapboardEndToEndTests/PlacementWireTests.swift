import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    /// Exact moves, bounded canvases and layout cells (protocol 1.5), through a real server and real sockets.
    @Suite("Exact moves, bounded canvases and layout cells over the wire", .serialized)
    struct PlacementWireTests {
        static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

        /// The last committed (not live) delta the client holds that places `shape`.
        static func committed(_ client: TestClient, _ shape: String) -> JSONValue? {
            client.all("delta").last { $0["live"] != .bool(true) && $0["shapes"]?[0]?["id"] == .string(shape) }?["shapes"]?[0]
        }

        @Test("[P13] A move with snap:false lands exactly where it was sent, with no guide or haptic, as a watcher sees it; without it the same kind of move snaps")
        func exactMoveOverTheWire() throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("exact", "name=ann"))
            let watcher = try TestClient(server.url("exact", "name=watcher"))
            _ = watcher.expect(type: "welcome")
            // A 64 × 64 square centred on the gridlines (pitch 32) through (256, 192): its edges are on gridlines too.
            ann.op("s", "snap", #""x":256,"y":192,"shapeId":"q","shape":{"kind":"roundedRect","w":64,"h":64}"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("s") }
            // 3 right and 35 down: 3 off the gridlines across and down. Exact, it stays there.
            ann.op("m1", "move", #""shape":"q","dx":3,"dy":35,"snap":false"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("m1") }
            let exact = try #require(watcher.expect(type: "delta") { $0["ops"]?[0] == .string("m1") })
            #expect(exact["shapes"]?[0]?["x"] == .number(259) && exact["shapes"]?[0]?["y"] == .number(227))
            #expect(exact["events"] == nil || exact["events"] == .array([]), "an exact move shows no guide and makes no haptic")
            // A whole gesture begun with snap:false stays exact through updates that do not repeat it.
            ann.op("g1", "move", #""shape":"q","phase":"begin","snap":false"#)
            ann.op("g2", "move", #""shape":"q","phase":"update","dx":-2,"dy":-1"#)
            ann.op("g3", "move", #""shape":"q","phase":"end","dx":-2,"dy":-2"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("g3") }
            let gesture = try #require(watcher.expect(type: "delta") { $0["ops"]?[0] == .string("g3") })
            #expect(gesture["shapes"]?[0]?["x"] == .number(257) && gesture["shapes"]?[0]?["y"] == .number(225))
            // A one-shot without snap:false that lands 2 off the gridlines snaps onto them.
            ann.op("m2", "move", #""shape":"q","dx":-3,"dy":-3"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("m2") }
            let snapped = try #require(watcher.expect(type: "delta") { $0["ops"]?[0] == .string("m2") })
            #expect(snapped["shapes"]?[0]?["x"] == .number(256) && snapped["shapes"]?[0]?["y"] == .number(224))
            // On the default (bounded) canvas an exact move past the edge stops with the square's edge on it.
            ann.op("m3", "move", #""shape":"q","dx":900,"dy":0,"snap":false"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("m3") }
            let kept = try #require(watcher.expect(type: "delta") { $0["ops"]?[0] == .string("m3") })
            #expect(kept["shapes"]?[0]?["x"] == .number(1024 - 32) && kept["shapes"]?[0]?["y"] == .number(224))
            let stored = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/exact").body)["q"]
            #expect(stored?["x"] == .number(992) && stored?["y"] == .number(224))
            let sent = [#"{"type":"op","id":"m1","op":"move","shape":"q","dx":3,"dy":35,"snap":false}"#,
                        #"{"type":"op","id":"g1","op":"move","shape":"q","phase":"begin","snap":false}"#].map { try? Self.json($0) }
            let problems = try schemaProblems(ann.received + watcher.received + sent.compactMap { $0 })
            #expect(problems == nil, "\(problems ?? "")")
        }

        @Test("[P3][P7] A POSTed layout canvas: a tap on a taken cell goes to the nearest free one, a full layout refuses layout_full; fill and bounded come back in GET and the welcome")
        func layoutOverTheWire() throws {
            let server = try ServerProcess()
            // Two cells of 200 × 200, stretched to fill; shapes may leave the canvas.
            let settings = #"{"id":"cells","width":400,"height":200,"layout":{"mode":"flexible","rows":1,"columns":2,"padding":0,"fill":true},"bounded":false}"#
            let created = try http(port: server.port, "POST", "/v1/canvases", body: settings)
            #expect(created.status == 201)
            let body = try Self.json(created.body)
            #expect(body["bounded"] == .bool(false) && body["layout"]?["fill"] == .bool(true))
            let fetched = try Self.json(try httpGet(port: server.port, "/v1/canvases/cells").body)
            #expect(fetched["bounded"] == .bool(false) && fetched["layout"] == body["layout"])
            // A canvas with the server's settings is bounded, and its layout (when it has one) keeps aspect.
            let plain = try Self.json(try http(port: server.port, "POST", "/v1/canvases",
                                               body: #"{"id":"plain","layout":{"mode":"squareFromRows","rows":2}}"#).body)
            #expect(plain["bounded"] == .bool(true) && plain["layout"]?["fill"] == .bool(false))
            for refused in [#"{"bounded":"no"}"#, #"{"layout":{"mode":"flexible","rows":1,"columns":1,"fill":1}}"#] {
                #expect(try http(port: server.port, "POST", "/v1/canvases", body: refused).status == 400, "\(refused)")
            }

            let ann = try TestClient(server.url("cells", "name=ann"))
            let watcher = try TestClient(server.url("cells", "name=watcher"))
            let welcome = try #require(ann.expect(type: "welcome"))
            #expect(welcome["bounded"] == .bool(false) && welcome["layout"]?["fill"] == .bool(true))
            _ = watcher.expect(type: "welcome")
            // A 100 × 20 bar fills its cell; the second tap on the same cell goes next door.
            ann.op("t1", "snap", #""x":50,"y":50,"shapeId":"a","shape":{"kind":"roundedRect","w":100,"h":20}"#)
            ann.op("t2", "snap", #""x":50,"y":50,"shapeId":"b""#)
            ann.op("t3", "snap", #""x":350,"y":150,"shapeId":"c""#)
            let reject = try #require(ann.expect(type: "reject") { $0["id"] == .string("t3") })
            #expect(reject["code"] == .string("layout_full"))
            _ = watcher.expect(type: "delta") { $0["ops"]?[0] == .string("t2") }
            let a = try #require(Self.committed(watcher, "a")), b = try #require(Self.committed(watcher, "b"))
            #expect(a["x"] == .number(100) && a["y"] == .number(100) && a["w"] == .number(200) && a["h"] == .number(200))
            #expect(b["x"] == .number(300) && b["y"] == .number(100))
            let stored = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/cells").body)
            #expect(stored.keys.sorted() == ["a", "b"], "the refused tap changed the canvas")
            // A drop on b's cell goes to the nearest free cell, which is a's own: a goes back where it was.
            ann.op("m1", "move", #""shape":"a","dx":200,"dy":0"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("m1") }
            let back = try #require(watcher.expect(type: "delta") { $0["ops"]?[0] == .string("m1") })
            #expect(back["shapes"]?[0]?["x"] == .number(100))
            let problems = try schemaProblems(ann.received + watcher.received)
            #expect(problems == nil, "\(problems ?? "")")
        }
    }
}
