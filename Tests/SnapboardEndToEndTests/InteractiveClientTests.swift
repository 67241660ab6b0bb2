import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

/// snapboard-client's full-screen view, run for real inside tmux: keys and SGR mouse reports go in with
/// send-keys, the screen comes back with capture-pane.
final class TmuxClient {
    let name = "snapboard-ui-\(getpid())-\(UUID().uuidString.prefix(8))"
    static let columns = 100, rows = 30

    init(url: String, quiet: Bool = true) throws {
        let client = serverBinary.deletingLastPathComponent().appendingPathComponent("snapboard-client").path
        try Self.tmux(["new-session", "-d", "-s", name, "-x", "\(Self.columns)", "-y", "\(Self.rows)",
                       "\(client) '\(url)'" + (quiet ? " --quiet" : "")])
    }

    deinit { _ = try? Self.tmux(["kill-session", "-t", name]) }

    /// Runs a tmux command and returns what it printed. It goes through system(3), not Process: the first
    /// command starts the tmux server, which would inherit the descriptor Process watches for the child's
    /// exit and keep waitUntilExit from ever returning.
    @discardableResult
    static func tmux(_ arguments: [String]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: file) }
        func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = (["tmux"] + arguments).map(quote).joined(separator: " ") + " </dev/null >\(quote(file.path)) 2>&1"
        _ = system(command)
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }

    func send(_ literal: String) throws { try Self.tmux(["send-keys", "-t", name, "-l", literal]) }
    func press(_ column: Int, _ row: Int) throws { try send("\u{1B}[<0;\(column);\(row)M") }
    func drag(_ column: Int, _ row: Int) throws { try send("\u{1B}[<32;\(column);\(row)M") }
    func release(_ column: Int, _ row: Int) throws { try send("\u{1B}[<0;\(column);\(row)m") }
    /// The pane's rows, top to bottom; the last one is the status line.
    func screen() throws -> [String] {
        var lines = try Self.tmux(["capture-pane", "-t", name, "-p"]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Waits up to `timeout` seconds for the screen to satisfy `condition`.
    func waitFor(timeout: Double = 5, _ condition: ([String]) -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(try screen()) { return true }
            usleep(50_000)
        }
        return false
    }

    /// The canvas point at the centre of a cell, as the view maps it (1024 × 768 canvas, last row for status).
    static func canvasPoint(_ column: Int, _ row: Int) -> (x: Double, y: Double) {
        ((Double(column) - 0.5) * 1024 / Double(columns), (Double(row) - 0.5) * 768 / Double(rows - 1))
    }
}

extension EndToEnd {
    @Suite("snapboard-client's interactive view, driven in tmux", .serialized)
    struct InteractiveClientTests {
        @Test("A click on empty space snaps a shape to the nearest grid point, and the status line shows the seq")
        func clickSnaps() throws {
            let server = try ServerProcess()
            let ui = try TmuxClient(url: server.url("tui-click"))
            #expect(try ui.waitFor { $0.last?.contains("connected") == true })
            try ui.press(20, 10)
            try ui.release(20, 10)
            #expect(try ui.waitFor { $0.last?.contains("seq 1") == true })
            let body = try httpGet(port: server.port, "/v1/canvases/tui-click").body
            let shapes = try Replica.shapes(ofSnapshot: body)
            let p = TmuxClient.canvasPoint(20, 10)
            let expected = ((p.x / 32).rounded() * 32, (p.y / 32).rounded() * 32)
            #expect(shapes.count == 1)
            #expect(shapes.values.first?["x"] == .number(expected.0) && shapes.values.first?["y"] == .number(expected.1))
        }

        @Test("Dragging a shape moves it, with a guide drawn while the snap holds; another client's change appears live")
        func dragAndPeers() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-drag"))
            peer.op("p1", "snap", #""x":512,"y":384,"shapeId":"d""#)
            _ = peer.expect(type: "ack")
            let ui = try TmuxClient(url: server.url("tui-drag"))
            #expect(try ui.waitFor { $0.last?.contains("seq 1") == true })
            try ui.press(51, 15)
            try ui.drag(52, 15)
            try ui.drag(54, 15)
            // While dragging, the dot's centre (about 543) snaps to gridline 544: a vertical guide spans the screen.
            let guideShown = try ui.waitFor { screen in screen.dropLast().filter { $0.contains("|") }.count >= 20 }
            #expect(guideShown, "\((try? ui.screen())?.joined(separator: "\n") ?? "")")
            try ui.release(54, 15)
            #expect(try ui.waitFor { $0.last?.contains("seq 2") == true })
            let moved = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/tui-drag").body)["d"]
            #expect(moved?["x"] == .number(544))
            #expect(try ui.waitFor { screen in screen.dropLast().allSatisfy { !$0.contains("|") } }, "the guide clears at the end")
            // A peer's new star shows up on the screen.
            peer.op("p2", "snap", #""x":800,"y":200,"shape":{"kind":"star","w":200,"h":200}"#)
            #expect(try ui.waitFor { $0.contains { $0.contains("sss") } })
        }

        @Test("[P22] x and the Delete key delete the selected shape; u undoes your last change, U redoes it")
        func deleteUndoRedo() throws {
            let server = try ServerProcess()
            let ui = try TmuxClient(url: server.url("tui-undo"))
            #expect(try ui.waitFor { $0.last?.contains("connected") == true })
            func count() throws -> Int { try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/tui-undo").body).count }
            func select() throws {
                try ui.press(50, 15)
                try ui.release(50, 15)
            }
            try select()  // empty space: a new shape
            #expect(try ui.waitFor { $0.last?.contains("seq 1") == true })
            try select()  // the shape: selected, and nothing sent
            #expect(try ui.waitFor { $0.last?.contains("selected") == true })
            try ui.send("x")
            #expect(try ui.waitFor { $0.last?.contains("seq 2") == true })
            #expect(try count() == 0)
            try ui.send("u")
            #expect(try ui.waitFor { $0.last?.contains("seq 3") == true })
            #expect(try count() == 1)
            try ui.send("U")
            #expect(try ui.waitFor { $0.last?.contains("seq 4") == true })
            #expect(try count() == 0)
            try ui.send("u")
            #expect(try ui.waitFor { $0.last?.contains("seq 5") == true })
            try select()
            #expect(try ui.waitFor { $0.last?.contains("seq 5") == true && $0.last?.contains("selected") == true })
            try ui.send("\u{1B}[3~")
            #expect(try ui.waitFor { $0.last?.contains("seq 6") == true })
            #expect(try count() == 0)
        }

        @Test("Keys: k cycles the kind, + scales the selected shape, q quits and gives the terminal back")
        func keys() throws {
            let server = try ServerProcess()
            let ui = try TmuxClient(url: server.url("tui-keys"))
            #expect(try ui.waitFor { $0.last?.contains("kind dot") == true })
            try ui.send("k")
            #expect(try ui.waitFor { $0.last?.contains("kind roundedRect") == true })
            try ui.press(50, 15)
            try ui.release(50, 15)
            #expect(try ui.waitFor { $0.last?.contains("seq 1") == true })
            try ui.press(50, 15)
            try ui.release(50, 15)
            try ui.send("+")
            #expect(try ui.waitFor { $0.last?.contains("seq 2") == true })
            let shape = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/tui-keys").body).values.first
            #expect(shape?["kind"] == .string("roundedRect") && shape?["scale"] == .number(1.25))
            try ui.send("?")
            #expect(try ui.waitFor { $0.contains { $0.contains("Snapboard terminal client") } })
            try ui.send("q")
            let gone = try ui.waitFor { _ in
            let answer = (try? TmuxClient.tmux(["has-session", "-t", ui.name])) ?? ""
            return answer.contains("can't find") || answer.contains("no server running")
        }
            #expect(gone, "the client did not exit on q")
        }
    }
}

extension TmuxClient {
    func wheel(up: Bool, _ column: Int, _ row: Int) throws { try send("\u{1B}[<\(up ? 64 : 65);\(column);\(row)M") }

    /// Everything the client writes to its terminal from now on goes to the returned file.
    func recordOutput() throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tui-out-\(UUID().uuidString)")
        try Self.tmux(["pipe-pane", "-o", "-t", name, "cat >> '\(file.path)'"])
        return file
    }
}

extension EndToEnd {
    @Suite("snapboard-client's interactive view, for people", .serialized)
    struct InteractiveClientPolishTests {
        @Test("The wheel zooms about the pointer instead of snapping a shape; z, Z, 0 and Ctrl+arrows zoom and pan")
        func wheelZoomsAndPans() throws {
            let server = try ServerProcess()
            let ui = try TmuxClient(url: server.url("tui-view"))
            #expect(try ui.waitFor { $0.last?.contains("connected") == true })
            try ui.wheel(up: true, 50, 15)
            #expect(try ui.waitFor { $0.last?.contains("zoom 1.5x") == true })
            try ui.wheel(up: false, 50, 15)
            #expect(try ui.waitFor { $0.last?.contains("zoom") == false })
            try ui.send("z")
            try ui.send("z")
            #expect(try ui.waitFor { $0.last?.contains("zoom 2.2x at 284,213") == true })
            try ui.send("\u{1B}[1;5C")
            #expect(try ui.waitFor { $0.last?.contains("zoom 2.2x at 398,213") == true })
            // One column is now 1024 / 2.25 / 100 ≈ 4.6 canvas units: a click lands on a finer grid point.
            try ui.press(1, 1)
            try ui.release(1, 1)
            #expect(try ui.waitFor { $0.last?.contains("seq 1") == true })
            let shape = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/tui-view").body).values.first
            #expect(shape?["x"] == .number(416) && shape?["y"] == .number(224), "\(String(describing: shape))")
            try ui.send("0")
            #expect(try ui.waitFor { $0.last?.contains("zoom") == false })
            #expect(try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/tui-view").body).count == 1,
                    "no wheel event snapped a shape")
        }

        @Test("Your selection keeps its lower-case letter; a shape someone else drags is upper case, and the status says who")
        func selectionAndLeases() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-lease", "name=alice"))
            peer.op("a", "snap", #""x":200,"y":200,"shapeId":"mine","shape":{"kind":"oval","w":120,"h":120}"#)
            peer.op("b", "snap", #""x":800,"y":500,"shapeId":"theirs","shape":{"kind":"triangle","w":120,"h":120}"#)
            _ = peer.expect(type: "ack") { _ in peer.all("ack").count == 2 }
            let ui = try TmuxClient(url: server.url("tui-lease"))
            #expect(try ui.waitFor { $0.last?.contains("seq 2") == true })
            // Select the oval (about column 20, row 8) with a click, which sends nothing.
            try ui.press(20, 8)
            try ui.release(20, 8)
            #expect(try ui.waitFor { $0.last?.contains("selected mine") == true && $0.last?.contains("seq 2") == true })
            var screen = try ui.screen().dropLast().joined()
            #expect(screen.contains("ooo") && !screen.contains("O"), "the selection is not drawn like a lease")
            peer.op("c", "move", #""shape":"theirs","phase":"begin""#)
            #expect(try ui.waitFor { $0.last?.contains("dragging: alice") == true })
            screen = try ui.screen().dropLast().joined()
            #expect(screen.contains("TTT") && screen.contains("ooo"))
            peer.op("d", "move", #""shape":"theirs","phase":"end","dx":0,"dy":0"#)
            #expect(try ui.waitFor { $0.last?.contains("dragging") == false && $0.dropLast().joined().contains("ttt") })
        }

        @Test("A horizontal guide is drawn without gaps and beneath shapes; the status says what snapped; the bell rings once per engage at most")
        func guidesStatusAndBell() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-guide"))
            peer.op("a", "snap", #""x":512,"y":384,"shapeId":"d""#)
            peer.op("b", "snap", #""x":200,"y":384,"shapeId":"wall","shape":{"kind":"roundedRect","w":120,"h":120}"#)
            _ = peer.expect(type: "ack") { _ in peer.all("ack").count == 2 }
            let ui = try TmuxClient(url: server.url("tui-guide"), quiet: false)
            #expect(try ui.waitFor { $0.last?.contains("seq 2") == true })
            let output = try ui.recordOutput()
            defer { try? FileManager.default.removeItem(at: output) }
            // Drag the dot down a little: its centre lines up with the rectangle's, and an edge guide joins them.
            try ui.press(51, 15)
            for row in 16...17 { try ui.drag(51, row) }
            let held = try ui.waitFor { screen in screen.last?.contains("snapped: ") == true && screen.contains { $0.contains("---") } }
            #expect(held, "\((try? ui.screen())?.joined(separator: "\n") ?? "")")
            let screen = try ui.screen()
            let row = try #require(screen.dropLast().first { $0.contains("---") })
            let first = try #require(row.firstIndex(of: "-")), last = try #require(row.lastIndex(of: "-"))
            let marks = row[first...last]
            #expect(!marks.contains(" ") && !marks.contains("+"), "the guide has gaps: \(row)")
            #expect(marks.contains("r"), "the shape on the guide's row is drawn over it: \(row)")
            for column in stride(from: 52, through: 90, by: 1) { try ui.drag(column, 17) }
            try ui.release(90, 17)
            #expect(try ui.waitFor { $0.last?.contains("seq 3") == true })
            let bells = try Data(contentsOf: output).filter { $0 == 0x07 }.count
            #expect(bells >= 1 && bells <= 6, "\(bells) bells for one drag")
        }

        @Test("A drag redraws only what changed: far fewer bytes than whole screens")
        func redrawsOnlyChanges() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-bytes"))
            peer.op("a", "snap", #""x":512,"y":384,"shapeId":"d""#)
            _ = peer.expect(type: "ack")
            let ui = try TmuxClient(url: server.url("tui-bytes"))
            #expect(try ui.waitFor { $0.last?.contains("seq 1") == true })
            let output = try ui.recordOutput()
            defer { try? FileManager.default.removeItem(at: output) }
            try ui.press(51, 15)
            for column in 52...71 { try ui.drag(column, 15); usleep(20_000) }
            try ui.release(71, 15)
            #expect(try ui.waitFor { $0.last?.contains("seq 2") == true })
            usleep(300_000)
            let bytes = try Data(contentsOf: output).count
            // One whole 100 × 30 screen in colour is over 10 KB; 20 drag steps redrawn whole would be 200 KB+.
            #expect(bytes > 0 && bytes < 40_000, "\(bytes) bytes for a 20-step drag")
        }

        @Test("While reconnecting the status line shows no stale peer count")
        func reconnectingStatus() throws {
            let server = try ServerProcess()
            let peer = try TestClient(server.url("tui-peers"))
            let ui = try TmuxClient(url: server.url("tui-peers"))
            #expect(try ui.waitFor { $0.last?.contains("peers 1") == true })
            _ = peer
            kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()
            #expect(try ui.waitFor { $0.last?.contains("reconnecting") == true && $0.last?.contains("peers -") == true })
        }
    }
}
