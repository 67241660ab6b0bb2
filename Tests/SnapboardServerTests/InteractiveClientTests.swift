import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// snapboard-client's full-screen view, run for real inside tmux: keys and SGR mouse reports go in with
/// send-keys, the screen comes back with capture-pane.
final class TmuxClient {
    let name = "snapboard-ui-\(getpid())-\(UUID().uuidString.prefix(8))"
    static let columns = 100, rows = 30

    init(url: String) throws {
        let client = serverBinary.deletingLastPathComponent().appendingPathComponent("snapboard-client").path
        try Self.tmux(["new-session", "-d", "-s", name, "-x", "\(Self.columns)", "-y", "\(Self.rows)", "\(client) '\(url)' --quiet"])
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
            #expect(try ui.waitFor { $0.last?.contains("seq 3") == true })
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
