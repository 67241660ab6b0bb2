import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

extension EndToEnd {
    /// snapboard-client's drawing and keys for protocol 1.7's text, notes and connectors and 1.6's order and
    /// lock, driven in tmux against a real server, with a second client to see what it sends.
    @Suite("snapboard-client's text, notes, connectors, order and lock, driven in tmux", .serialized)
    struct TerminalContentTests {
        /// The shapes the server holds on `canvas` now.
        func shapes(_ server: ServerProcess, _ canvas: String) throws -> [String: JSONValue] {
            try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/\(canvas)").body)
        }

        func number(_ v: JSONValue?) -> Double? { if case .number(let n)? = v { n } else { nil } }

        func dump(_ server: ServerProcess, _ canvas: String) throws -> String {
            try runCommand(serverBinary.deletingLastPathComponent().appendingPathComponent("snapboard-client"),
                           [server.url(canvas), "--dump", "--size", "100x30"]).output
        }

        @Test("[P26] Another client's note shows its text on its fill, a text shape only its words, a label sits inside its shape; the dump prints them")
        func notesAndLabels() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-notes", "name=alice"))
            peer.op("a", "snap", #""x":512,"y":384,"shapeId":"n","shape":{"kind":"note","text":"Hello board"}"#)
            peer.op("b", "snap", #""x":200,"y":100,"shapeId":"w","shape":{"kind":"text","text":"just words"}"#)
            peer.op("c", "snap", #""x":820,"y":600,"shapeId":"o","shape":{"kind":"oval","w":140,"h":160,"text":"a label that wraps"}"#)
            #expect(peer.read { $0.all("ack").count == 3 })
            let ui = try TmuxClient(url: server.url("tui-notes"))
            let shown = try ui.waitFor { $0.last?.contains("seq 3") == true && $0.contains { $0.contains("Hello board") } }
            let screen = try ui.screen()
            #expect(shown, "\(screen.joined(separator: "\n"))")
            // The note's text is centred in a block of n: its fill on either side.
            let note = try #require(screen.first { $0.contains("Hello board") })
            #expect(note.contains("nHello boardn"), "\(note)")
            // The text shape draws its words and no letters of its own.
            #expect(screen.contains { $0.contains("just words") } && !screen.dropLast().joined().contains("tt"))
            // The oval's label wraps between words, inside the oval's cells.
            #expect(screen.contains { $0.contains("a label that") && !$0.contains("wraps") }, "\(screen.joined(separator: "\n"))")
            #expect(screen.contains { $0.contains("wraps") })
            let dumped = try dump(server, "tui-notes")
            #expect(dumped.contains("nHello boardn") && dumped.contains("just words") && dumped.contains("wraps"), "\(dumped)")
        }

        @Test("[P28] An arrow between two shapes is a line of cells from edge to edge with its head at the to end; it follows a move")
        func arrowsAreLines() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-arrow", "name=alice"))
            peer.op("a", "snap", #""x":200,"y":384,"shapeId":"p","shape":{"kind":"roundedRect","w":120,"h":120}"#)
            peer.op("b", "snap", #""x":800,"y":384,"shapeId":"q","shape":{"kind":"roundedRect","w":120,"h":120}"#)
            peer.op("c", "connect", #""shapeId":"e","shape":{"kind":"arrow"},"from":{"shape":"p","anchor":"center"},"to":{"shape":"q","anchor":"center"}"#)
            #expect(peer.read { $0.all("ack").count == 3 })
            let ui = try TmuxClient(url: server.url("tui-arrow"))
            let drawn = try ui.waitFor { $0.last?.contains("seq 3") == true && $0.contains { $0.contains("r────────") } }
            let screen = try ui.screen()
            #expect(drawn, "\(screen.joined(separator: "\n"))")
            let row = try #require(screen.first { $0.contains("r────") })
            #expect(row.contains("────>r"), "the head touches the shape at the to end: \(row)")
            #expect(row.filter { $0 == "─" }.count >= 40, "\(row)")
            // The dump draws it the same way.
            let dumped = try dump(server, "tui-arrow")
            #expect(dumped.contains("r────") && dumped.contains("───>r"), "\(dumped)")
            // Moving q up and left turns the line into a steep rising diagonal with its head on q.
            peer.op("d", "move", #""shape":"q","dx":-450,"dy":-280,"snap":false"#)
            #expect(peer.read { $0.all("ack").count == 4 })
            let turned = try ui.waitFor { $0.last?.contains("seq 4") == true && $0.contains { $0.contains("╱") } }
            #expect(turned, "\((try? ui.screen())?.joined(separator: "\n") ?? "")")
        }

        @Test("[P28] a on a selected shape and a click on another draws an arrow bound to both centres; A draws a line")
        func connectKey() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-connect", "name=alice"))
            peer.op("a", "snap", #""x":200,"y":384,"shapeId":"p","shape":{"kind":"roundedRect","w":120,"h":120}"#)
            peer.op("b", "snap", #""x":800,"y":384,"shapeId":"q","shape":{"kind":"roundedRect","w":120,"h":120}"#)
            #expect(peer.read { $0.all("ack").count == 2 })
            let ui = try TmuxClient(url: server.url("tui-connect"))
            #expect(try ui.waitFor { $0.last?.contains("seq 2") == true })
            // Column 20, row 15 is canvas (199.7, 384): on p. Column 79 is 803.8: on q.
            try ui.press(20, 15)
            try ui.release(20, 15)
            #expect(try ui.waitFor { $0.last?.contains("selected p") == true })
            try ui.send("a")
            #expect(try ui.waitFor { $0.last?.contains("arrow from p") == true })
            try ui.press(79, 15)
            try ui.release(79, 15)
            let delta = try #require(peer.expect(type: "delta") { $0["seq"] == .number(3) })
            let arrow = try #require(delta["shapes"]?[0])
            #expect(arrow["kind"] == .string("arrow"))
            #expect(arrow["from"] == .object(["shape": .string("p"), "anchor": .string("center")]))
            #expect(arrow["to"] == .object(["shape": .string("q"), "anchor": .string("center")]))
            #expect(try ui.waitFor { $0.contains { $0.contains("───>r") } })
            // A: a line, ended in empty space at a free point.
            try ui.send("A")
            #expect(try ui.waitFor { $0.last?.contains("line from p") == true })
            try ui.press(20, 3)
            try ui.release(20, 3)
            let line = try #require(peer.expect(type: "delta") { $0["seq"] == .number(4) }?["shapes"]?[0])
            #expect(line["kind"] == .string("line") && line["from"]?["shape"] == .string("p") && line["to"] == nil)
            #expect(try shapes(server, "tui-connect").count == 4)
        }

        @Test("[P26] t opens the editor: a begin, updates that keep the lease past 5 s, Enter commits the text that the other client sees; Escape commits nothing")
        func editText() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-edit", "name=alice"))
            peer.op("a", "snap", #""x":512,"y":384,"shapeId":"n","shape":{"kind":"note"}"#)
            #expect(peer.read { $0.all("ack").count == 1 })
            let ui = try TmuxClient(url: server.url("tui-edit", "name=bob"))
            #expect(try ui.waitFor { $0.last?.contains("seq 1") == true })
            try ui.press(50, 15)
            try ui.release(50, 15)
            #expect(try ui.waitFor { $0.last?.contains("selected n") == true })
            try ui.send("t")
            // The begin takes the lease: the peer is told who edits.
            #expect(peer.expect(type: "presence") { $0["event"] == .string("lease") && $0["leases"]?["n"] != nil } != nil)
            try ui.send("Hi thére")
            #expect(try ui.waitFor { $0.last?.contains("text n: Hi thére") == true })
            // The draft shows in the note as it is typed.
            #expect(try ui.waitFor { $0.dropLast().contains { $0.contains("Hi thére") } })
            // Past the 5 s lease: had the updates stopped, the lease would have lapsed and committed the draft.
            usleep(6_500_000)
            #expect(try shapes(server, "tui-edit")["n"]?["text"] == nil, "the draft committed before Enter")
            #expect(!peer.received.contains { $0["type"] == .string("delta") && $0["seq"] == .number(2) })
            try ui.send("\r")
            let committed = try #require(peer.expect(type: "delta") { $0["seq"] == .number(2) })
            #expect(committed["shapes"]?[0]?["text"] == .string("Hi thére"))
            #expect(try ui.waitFor { $0.last?.contains("seq 2") == true && $0.last?.contains("text n") == false })
            // Escape ends with the original text: the server answers unchanged and nothing commits.
            try ui.send("t")
            try ui.send("xyz")
            #expect(try ui.waitFor { $0.last?.contains("text n: Hi thérexyz") == true })
            try ui.send("\u{1B}")
            #expect(try ui.waitFor { $0.last?.contains("text n") == false })
            peer.op("z", "snap", #""x":100,"y":100"#)
            #expect(peer.expect(type: "ack") { $0["id"] == .string("z") }?["seq"] == .number(3), "Escape committed something")
            #expect(try shapes(server, "tui-edit")["n"]?["text"] == .string("Hi thére"))
        }

        @Test("[P26][P14] While someone else edits a shape, t says who holds it and opens nothing")
        func heldByOther() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-held", "name=alice"))
            peer.op("a", "snap", #""x":512,"y":384,"shapeId":"n","shape":{"kind":"note"}"#)
            peer.op("b", "text", #""shape":"n","phase":"begin""#)
            #expect(peer.read { $0.all("ack").count == 1 })
            let ui = try TmuxClient(url: server.url("tui-held"))
            #expect(try ui.waitFor { $0.last?.contains("dragging: alice") == true })
            peer.op("b2", "text", #""shape":"n","phase":"update","text":"min""#)
            try ui.press(50, 15)
            try ui.release(50, 15)
            try ui.send("t")
            let told = try ui.waitFor { $0.last?.contains("n is held by alice") == true }
            #expect(told, "\((try? ui.screen())?.last ?? "")")
            // The editor did not open: keys are keys again (k cycles the kind).
            try ui.send("k")
            #expect(try ui.waitFor { $0.last?.contains("kind roundedRect") == true })
            peer.op("c", "text", #""shape":"n","phase":"update","text":"mine""#)
            peer.op("d", "text", #""shape":"n","phase":"end","text":"mine""#)
            #expect(peer.expect(type: "ack") { $0["id"] == .string("d") }?["seq"] == .number(2))
            #expect(try ui.waitFor { $0.dropLast().contains { $0.contains("mine") } })
        }

        @Test("[P25] ] [ } { send one order op each and l toggles the lock; the other client sees each commit; a locked shape's refusal is told")
        func orderAndLock() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-order", "name=alice"))
            peer.op("a", "snap", #""x":500,"y":384,"shapeId":"a","shape":{"kind":"roundedRect","w":140,"h":140}"#)
            peer.op("b", "snap", #""x":580,"y":384,"shapeId":"b","shape":{"kind":"roundedRect","w":140,"h":140}"#)
            #expect(peer.read { $0.all("ack").count == 2 })
            let ui = try TmuxClient(url: server.url("tui-order"))
            #expect(try ui.waitFor { $0.last?.contains("seq 2") == true })
            // Column 45, row 15 is canvas (455.7, 384): on a alone.
            try ui.press(45, 15)
            try ui.release(45, 15)
            #expect(try ui.waitFor { $0.last?.contains("selected a") == true })
            func above() throws -> Bool {
                let all = try shapes(server, "tui-order")
                return try #require(number(all["a"]?["z"])) > #require(number(all["b"]?["z"]))
            }
            for (key, seq, onTop) in [("}", 3, true), ("{", 4, false), ("]", 5, true), ("[", 6, false)] {
                try ui.send(key)
                #expect(peer.expect(type: "delta") { $0["seq"] == .number(Double(seq)) } != nil, "\(key)")
                #expect(try ui.waitFor { $0.last?.contains("seq \(seq)") == true }, "\(key)")
                #expect(try above() == onTop, "after \(key)")
            }
            try ui.send("l")
            #expect(peer.expect(type: "delta") { $0["seq"] == .number(7) } != nil)
            #expect(try shapes(server, "tui-order")["a"]?["locked"] == .bool(true))
            #expect(try ui.waitFor { $0.last?.contains("selected a (locked)") == true })
            // The server refuses to scale a locked shape, and the status line says what to do.
            try ui.send("+")
            #expect(try ui.waitFor { $0.last?.contains("a is locked: l unlocks it") == true })
            // x on a locked shape sends nothing and keeps it selected, so that l unlocks it.
            try ui.send("x")
            try ui.send("l")
            #expect(peer.expect(type: "delta") { $0["seq"] == .number(8) } != nil)
            #expect(try shapes(server, "tui-order")["a"]?["locked"] == nil)
            // One op each: nothing else committed.
            peer.op("z", "snap", #""x":100,"y":100"#)
            #expect(peer.expect(type: "ack") { $0["id"] == .string("z") }?["seq"] == .number(9))
        }

        @Test("[P26][P28][P25] A script's text, connect, order, lock and unlock lines send those ops")
        func scriptLines() throws {
            let server = try ServerProcess()
            let script = """
                snap 200 384 roundedRect id=p
                snap 800 384 note id=q
                wait-seq 2
                text q Two  words\\nand a line
                expect ack seq=3
                text p begin
                text p update dra
                text p end draft
                expect ack seq=4
                connect p q:left arrow id=e
                expect ack seq=5
                connect 100,100 p line
                expect ack seq=6
                order back q
                expect ack seq=7
                lock p q
                expect ack seq=8
                unlock q
                expect ack seq=9
                """
            let (status, _, stderr) = try runClient([server.url("script-content"), "--script", "-"], input: script + "\n")
            #expect(status == 0, "\(stderr)")
            let all = try shapes(server, "script-content")
            #expect(all["q"]?["text"] == .string("Two  words\nand a line"))
            #expect(all["p"]?["text"] == .string("draft"))
            #expect(all["e"]?["kind"] == .string("arrow") && all["e"]?["to"] == .object(["shape": .string("q"), "anchor": .string("left")]))
            #expect(all.values.contains { $0["kind"] == .string("line") && $0["to"]?["shape"] == .string("p") })
            #expect(all["p"]?["locked"] == .bool(true) && all["q"]?["locked"] == nil)
            #expect(try #require(number(all["q"]?["z"])) < #require(number(all["p"]?["z"])))
            #expect(try runClient([server.url("script-content"), "--script", "-"], input: "order sideways p\n").status == 1)
            #expect(try runClient([server.url("script-content"), "--script", "-"], input: "connect p q:middle\n").status == 1)
        }
    }
}
