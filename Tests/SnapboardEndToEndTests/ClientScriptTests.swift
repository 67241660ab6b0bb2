import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

/// Runs the built `snapboard-client` with `arguments`, feeding `input`; returns its status and output lines.
func runClient(_ arguments: [String], input: String = "") throws -> (status: Int32, lines: [JSONValue], stderr: String) {
    let process = Process()
    process.executableURL = serverBinary.deletingLastPathComponent().appendingPathComponent("snapboard-client")
    process.arguments = arguments
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let lines = String(decoding: out, as: UTF8.self).split(separator: "\n").compactMap { try? JSONValue.parse(Array($0.utf8)) }
    return (process.terminationStatus, lines, String(decoding: err, as: UTF8.self))
}

extension EndToEnd {
    @Suite("snapboard-client, script and dump modes, against a real server", .serialized)
    struct ClientScriptTests {
        @Test("A script's commands reach the server and every server message comes out as one JSON line")
        func script() throws {
            let server = try ServerProcess()
            let watcher = try TestClient(server.url("script"))
            let script = """
                # two shapes, a drag that snaps, a pinch, a twist
                snap 100 100 star id=a
                snap 300 100 oval id=b
                wait-seq 2
                move a begin
                move a update 150 0
                sleep 40
                move a end 150 0
                scale b 1.5 at 300 100
                rotate b 0.26
                expect ack seq=5
                delete a
                undo
                redo
                undo
                expect ack seq=9
                ping
                expect pong
                """
            let (status, lines, stderr) = try runClient([server.url("script"), "--script", "-"], input: script)
            #expect(status == 0, "\(stderr)")
            #expect(lines.first?["type"] == .string("welcome"))
            #expect(lines.filter { $0["type"] == .string("ack") }.map { $0["seq"] } == (1...9).map { .number(Double($0)) })
            #expect(lines.contains { $0["type"] == .string("pong") })
            #expect(lines.contains { $0["live"] == .bool(true) })
            watcher.pump { Replica($0.received).seq == 9 }
            let truth = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/script").body)
            #expect(Replica(lines).shapes == truth)
            #expect(Replica(watcher.received).shapes == truth)
            #expect(truth["b"]?["scale"] == .number(1.5))
            #expect(truth["a"] != nil, "deleted, undone, redone, undone again")
        }

        @Test("A failed expect or a malformed command ends the script with status 1 and says which line")
        func failures() throws {
            let server = try ServerProcess()
            let timedOut = try runClient([server.url("fail"), "--script", "-", "--timeout", "0.5"], input: "snap 10 10\nexpect reject\n")
            #expect(timedOut.status == 1 && timedOut.stderr.contains("line 2"))
            let malformed = try runClient([server.url("fail"), "--script", "-"], input: "snap ten 10\n")
            #expect(malformed.status == 1 && malformed.stderr.contains("line 1"))
            let unknown = try runClient([server.url("fail"), "--script", "-"], input: "teleport a\n")
            #expect(unknown.status == 1 && unknown.stderr.contains("unknown command"))
        }

        @Test("--dump prints the canvas once as text")
        func dump() throws {
            let server = try ServerProcess()
            _ = try runClient([server.url("dump"), "--script", "-"], input: "snap 500 380 roundedRect\n")
            let process = Process()
            process.executableURL = serverBinary.deletingLastPathComponent().appendingPathComponent("snapboard-client")
            process.arguments = [server.url("dump"), "--dump"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(text.contains("canvas dump seq 1: 1 shapes"))
            #expect(text.contains("rrr"))
        }

        @Test("--dump --size draws at that size: with 1024 / 32 columns every grid column lands on its own")
        func dumpSize() throws {
            let server = try ServerProcess()
            let process = Process()
            process.executableURL = serverBinary.deletingLastPathComponent().appendingPathComponent("snapboard-client")
            process.arguments = [server.url("dump-size"), "--dump", "--size", "32x24"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let rows = lines.filter { $0.hasPrefix("|") }
            #expect(rows.count == 24 && rows.allSatisfy { $0.count == 34 })
            // Pitch 32 on 1024 × 768 at 32 × 24: one intersection per cell, evenly, no aliasing.
            let gridRows = rows.filter { $0.contains("+") }
            #expect(gridRows.count == 23 && gridRows.allSatisfy { $0.filter { $0 == "+" }.count == 31 })
            #expect(try runClient([server.url("dump-size"), "--dump", "--size", "wide"]).status != 0)
        }

        @Test("--dump outlines the layout's cells that the welcome announces, each cell once")
        func dumpLayout() throws {
            let server = try ServerProcess()
            // 2 × 3 cells, padding 64, on 1024 × 768 and no grid lines to draw: 20 × 8 characters apart at 80 × 24.
            let settings = #"{"id":"cells","grid":{"x":{"divisions":2},"y":{"divisions":2}},"layout":{"mode":"flexible","rows":2,"columns":3,"padding":64}}"#
            #expect(try http(port: server.port, "POST", "/v1/canvases", body: settings).status == 201)
            let dumped = try runCommand(serverBinary.deletingLastPathComponent().appendingPathComponent("snapboard-client"),
                                        [server.url("cells"), "--dump", "--size", "80x24"])
            #expect(dumped.status == 0)
            let rows = dumped.output.split(separator: "\n").filter { $0.hasPrefix("|") }.map { Array($0.dropFirst().dropLast()) }
            #expect(rows.count == 24)
            // Each of the two rows of cells has a top and a bottom edge: a run of dots across three cells.
            let edges = rows.filter { $0.filter { $0 == "." }.count > 30 }
            #expect(edges.count == 4)
            // Down the middle of a cell row, the six vertical edges of three cells.
            #expect(rows[6].filter { $0 == "." }.count == 6)
        }
    }
}
