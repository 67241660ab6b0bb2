import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    @Suite("Cursors, views and colours against a real server (P11, P20, P21)", .serialized)
    struct CursorViewTests {
        @Test("[P20] A cursor goes to the others coalesced into the tick, never back to its owner, and a leave removes it")
        func cursorsRelayed() throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("cursors", "name=ann")), ben = try TestClient(server.url("cursors", "name=ben"))
            _ = ann.expect(type: "presence") { $0["event"] == .string("join") }
            // A burst within one tick arrives as the latest position only.
            for x in 1...20 { ben.send(#"{"type":"cursor","x":\#(x),"y":7.5}"#) }
            let relayed = try #require(ann.expect(type: "cursors"))
            ann.pump(timeout: 0.3)
            let entries = ann.all("cursors").flatMap { m -> [JSONValue] in if case .array(let c)? = m["cursors"] { c } else { [] } }
            #expect(entries.count < 20, "20 positions in a burst are coalesced, got \(entries.count)")
            #expect(entries.last?["x"] == .number(20) && entries.last?["y"] == .number(7.5))
            #expect(relayed["cursors"]?[0]?["session"] == .number(2))
            ben.pump(timeout: 0.2)
            #expect(ben.all("cursors").isEmpty, "a session never gets its own cursor")
            // Leaving the canvas reaches the others as an entry without a position (a slow run may still
            // be delivering the burst's last tick first, so the first cursors message after it is not it).
            ben.send(#"{"type":"cursor","x":null,"y":null}"#)
            let gone = ann.expect(type: "cursors") { $0["cursors"]?[0]?["session"] == .number(2) && $0["cursors"]?[0]?["x"] == nil }
            #expect(gone != nil)
            ben.close()
            _ = ann.expect(type: "presence") { $0["event"] == .string("leave") && $0["session"] == .number(2) }
        }

        @Test("[P20][P10] Malformed cursors are bad_message; a flood is dropped with one rate_limited, and the canvas is unchanged")
        func cursorLimits() throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("flood")), ben = try TestClient(server.url("flood"))
            ann.send(#"{"type":"cursor","x":1}"#)
            _ = ann.expect(type: "error") { $0["code"] == .string("bad_message") }
            ann.send(#"{"type":"cursor","x":"left","y":2}"#)
            _ = ann.expect(type: "error") { $0["code"] == .string("bad_message") }
            ann.send(#"{"type":"cursor","x":1e300,"y":2}"#)
            _ = ann.expect(type: "error") { $0["code"] == .string("bad_message") }
            for x in 0..<400 { ann.send(#"{"type":"cursor","x":\#(x),"y":1}"#) }
            _ = ann.expect(type: "error") { $0["code"] == .string("rate_limited") }
            ann.pump(timeout: 0.3)
            let warnings = ann.all("error").filter { $0["code"] == .string("rate_limited") }.count
            #expect(warnings >= 1 && warnings < 10, "one warning per run of dropped cursors, got \(warnings)")
            #expect(ann.closed == nil, "a cursor flood does not close the session")
            _ = ben.expect(type: "cursors")
            let (status, body) = try httpGet(port: server.port, "/v1/canvases/flood")
            #expect(status == 200 && body.contains(#""seq":0"#) && body.contains(#""shapes":[]"#))
            let metrics = try httpGet(port: server.port, "/metrics").body
            #expect(metrics.contains("snapboard_cursors_dropped_total"))
        }

        @Test("[P21] A view's zoom scales the snapping threshold from the next op; a zoom out of range is bad_message")
        func viewZoom() throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("zoom"))
            // Grid pitch 32, threshold 5 canvas units at zoom 1: a box moved to 4 units off a line snaps to it.
            ann.op("s", "snap", #""x":320,"y":320,"shapeId":"d","shape":{"kind":"dot","w":24}"#)
            _ = ann.expect(type: "ack")
            ann.op("m1", "move", #""shape":"d","dx":4,"dy":0"#)
            let snapped = try #require(ann.expect(type: "delta") { $0["ops"]?[0] == .string("m1") })
            #expect(snapped["shapes"]?[0]?["x"] == .number(320))
            // At zoom 4 the threshold is 1.25 units: the same 4-unit move stays where it was put.
            ann.send(#"{"type":"view","zoom":4}"#)
            ann.op("m2", "move", #""shape":"d","dx":4,"dy":0"#)
            let free = try #require(ann.expect(type: "delta") { $0["ops"]?[0] == .string("m2") })
            #expect(free["shapes"]?[0]?["x"] == .number(324))
            ann.send(#"{"type":"view","zoom":0}"#)
            _ = ann.expect(type: "error") { $0["code"] == .string("bad_message") }
            ann.send(#"{"type":"view"}"#)
            _ = ann.expect(type: "error") { $0["code"] == .string("bad_message") }
        }

        @Test("[P11] Every session has a #rrggbb colour, the same in every list, kept across reconnects by its client id")
        func colours() throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("colours", "name=ann&client=ann-laptop"))
            let first = try #require(ann.expect(type: "welcome"))
            let colour = try #require(first["sessions"]?[0]?["color"])
            guard case .string(let hex) = colour else { Issue.record("no colour"); return }
            #expect(hex.count == 7 && hex.hasPrefix("#") && hex.dropFirst().allSatisfy(\.isHexDigit))
            let ben = try TestClient(server.url("colours", "name=ben"))
            let seen = try #require(ben.expect(type: "welcome"))
            #expect(seen["sessions"]?[0]?["color"] == colour)
            ann.close()
            _ = ben.expect(type: "presence") { $0["event"] == .string("leave") }
            let again = try TestClient(server.url("colours", "name=ann&client=ann-laptop"))
            let joined = try #require(ben.expect(type: "presence") { $0["event"] == .string("join") })
            #expect(joined["color"] == colour && joined["session"] != first["session"])
            again.close()
        }
    }
}
