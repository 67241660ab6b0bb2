import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import SnapboardTesting
#endif

extension EndToEnd {
    @Suite("snapboard-client's arrow keys, driven in tmux", .serialized)
    struct TerminalNudgeTests {
        /// The shape `id` as the server holds it now.
        func placed(_ server: ServerProcess, _ canvas: String, _ id: String = "n") throws -> (x: Double?, y: Double?) {
            let shape = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/\(canvas)").body)[id]
            func number(_ v: JSONValue?) -> Double? { if case .number(let n)? = v { n } else { nil } }
            return (number(shape?["x"]), number(shape?["y"]))
        }

        @Test("[P13] A click only selects; an arrow nudges one grid step along its axis alone, Shift ten, exactly (snap:false); Alt lets it snap")
        func arrowsNudgeByGridSteps() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-nudge", "name=alice"))
            // A 60 × 60 square 3 units below the gridline (and canvas middle) at y 384: a snapping move catches it.
            peer.op("a", "snap", #""x":512,"y":384,"shapeId":"n","shape":{"kind":"roundedRect","w":60,"h":60}"#)
            peer.op("b", "move", #""shape":"n","dx":0,"dy":3,"snap":false"#)
            #expect(peer.read { $0.all("ack").count == 2 })
            #expect(try placed(server, "tui-nudge") == (512, 387))

            let ui = try TmuxClient(url: server.url("tui-nudge"))
            #expect(try ui.waitFor { $0.last?.contains("seq 2") == true })
            // Column 50, row 15 is canvas (506.9, 383.9): on the square.
            try ui.press(50, 15)
            try ui.release(50, 15)
            #expect(try ui.waitFor { $0.last?.contains("selected n") == true })
            // The click sent nothing: the next commit anyone makes is seq 3.
            peer.op("c", "snap", #""x":100,"y":100,"shapeId":"other""#)
            #expect(peer.read { $0.all("ack").count == 3 })
            #expect(peer.all("ack").last?["seq"] == .number(3), "the click committed something")

            try ui.send("\u{1B}[D")
            #expect(try ui.waitFor { $0.last?.contains("seq 4") == true })
            #expect(try placed(server, "tui-nudge") == (480, 387), "Left moves exactly one grid step left, and not up or down")
            try ui.send("\u{1B}[1;2D")
            #expect(try ui.waitFor { $0.last?.contains("seq 5") == true })
            #expect(try placed(server, "tui-nudge") == (160, 387), "Shift+Left moves ten grid steps")
            try ui.send("\u{1B}[B")
            #expect(try ui.waitFor { $0.last?.contains("seq 6") == true })
            #expect(try placed(server, "tui-nudge") == (160, 419), "Down moves one grid step down")
            // Alt+Up snaps: one step up lands 3 below the gridline at 384 and the shape snaps onto it.
            try ui.send("\u{1B}[1;3A")
            #expect(try ui.waitFor { $0.last?.contains("seq 7") == true })
            #expect(try placed(server, "tui-nudge") == (160, 384), "Alt+arrow lets the nudge snap")
        }

        @Test("[P7] A click on a full layout says in words that every cell is taken, and changes nothing")
        func fullLayoutIsTold() throws {
            let server = try ServerProcess()
            let settings = #"{"id":"tui-full","layout":{"mode":"flexible","rows":1,"columns":1,"padding":100}}"#
            #expect(try http(port: server.port, "POST", "/v1/canvases", body: settings).status == 201)
            let peer = try TestClient(server.url("tui-full", "name=alice"))
            peer.op("a", "snap", #""x":512,"y":384"#)
            #expect(peer.read { $0.all("ack").count == 1 })
            let ui = try TmuxClient(url: server.url("tui-full"))
            #expect(try ui.waitFor { $0.last?.contains("seq 1") == true })
            // The top-left corner is in the layout's margin, off the one shape: a tap there has nowhere to go.
            try ui.press(1, 1)
            try ui.release(1, 1)
            #expect(try ui.waitFor { $0.last?.contains("the layout is full") == true })
            #expect(try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/tui-full").body).count == 1)
        }

        @Test("[P13] A script's move … exact sends snap:false: the shape moves by exactly DX DY")
        func scriptExactMove() throws {
            let server = try ServerProcess()
            let script = "snap 256 192 roundedRect id=q\nwait-seq 1\nmove q 3 35 exact\nexpect ack seq=2\nmove q begin exact\nmove q end -1 1\nexpect ack seq=3\n"
            let (status, _, stderr) = try runClient([server.url("script-exact"), "--script", "-"], input: script)
            #expect(status == 0, "\(stderr)")
            #expect(try placed(server, "script-exact", "q") == (258, 228))
        }
    }
}
