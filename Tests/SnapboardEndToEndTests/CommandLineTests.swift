import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    @Suite("snapboard-server's command line", .serialized)
    struct CommandLineTests {
        @Test("Options can come from SNAPBOARD_* variables, and flags win over them")
        func environment() throws {
            let server = try ServerProcess(["--width", "640"], environment: ["SNAPBOARD_GRID_DIVISIONS": "8", "SNAPBOARD_WIDTH": "2000"])
            let client = try TestClient(server.url("env"))
            let grid = client.expect(type: "welcome")?["grid"]
            #expect(grid?["x"] == .object(["divisions": .number(8)]))
            #expect(grid?["width"] == .number(640))
        }

        @Test("On poll, as on the default libev, the server serves, broadcasts and shuts down on SIGTERM")
        func poll() throws {
            let server = try ServerProcess(["--event-loop", "poll"])
            let ann = try TestClient(server.url("loops", "name=ann")), ben = try TestClient(server.url("loops", "name=ben"))
            _ = ann.expect(type: "welcome")
            _ = ben.expect(type: "welcome")
            ann.op("a1", "snap", #""x":100,"y":100"#)
            #expect(ben.expect(type: "delta")?["ops"] == .array([.string("a1")]))
            #expect(ann.expect(type: "ack")?["seq"] == .number(1))
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
            #expect(server.terminate() == 0)
            ben.pump(timeout: 2) { $0.closed != nil }
            #expect(ben.closed?.code == 1001, "closed: \(String(describing: ben.closed))")
        }

        @Test("A SNAPBOARD_* number that does not parse stops the server, naming the variable, instead of being ignored")
        func badVariable() throws {
            let port = try runServerCommand(["--data", ":memory:"], environment: ["SNAPBOARD_PORT": "abc"], withErrors: true)
            #expect(port.status == 64 && port.output.contains("SNAPBOARD_PORT=abc is not a whole number"), "\(port.output)")
            let tick = try runServerCommand(["--data", ":memory:"], environment: ["SNAPBOARD_IDLE_UNLOAD": "soon"], withErrors: true)
            #expect(tick.status == 64 && tick.output.contains("SNAPBOARD_IDLE_UNLOAD=soon is not a number"), "\(tick.output)")
        }

        @Test("A port already taken stops the server with one line naming the port, and no libwebsockets noise")
        func portTaken() throws {
            let first = try ServerProcess()
            let second = try runServerCommand(["--port", "\(first.port)", "--data", ":memory:"], withErrors: true)
            #expect(second.status == 2)
            #expect(second.output.contains("port \(first.port) on 127.0.0.1 is already in use"), "\(second.output)")
            #expect(!second.output.contains("libwebsockets") && !second.output.contains("serving on poll"), "\(second.output)")
        }

        @Test("`snapboard-server health` (the container's health check) exits 0 against a live server, also one that lists its Host names, and 1 when none answers")
        func health() throws {
            let server = try ServerProcess(["--allowed-host", "board.example.com"])
            let up = try runServerCommand(["health"], environment: ["SNAPBOARD_HOST": "0.0.0.0", "SNAPBOARD_PORT": "\(server.port)"], withErrors: true)
            #expect(up.status == 0 && up.output.contains(#""status":"ok""#), "\(up.output)")
            _ = server.terminate()
            let down = try runServerCommand(["health", "--port", "\(server.port)", "--timeout", "1"], withErrors: true)
            #expect(down.status == 1 && down.output.hasPrefix("unhealthy"), "\(down.output)")
        }

        @Test("An unknown event loop is refused at startup")
        func unknownEventLoop() throws {
            let (status, _) = try runServerCommand(["serve", "--event-loop", "libuv"])
            #expect(status == 64)
        }

        @Test("--tick-phases outside 1...16 is refused at startup, and a server ticking in one phase still broadcasts")
        func tickPhases() throws {
            for bad in ["0", "17"] {
                let (status, output) = try runServerCommand(["serve", "--tick-phases", bad, "--port", "0"], withErrors: true)
                #expect(status == 64 && output.contains("--tick-phases must be 1...16"), "\(bad): \(output)")
            }
            let server = try ServerProcess(["--tick-phases", "1"])
            let ann = try TestClient(server.url("phases")), ben = try TestClient(server.url("phases"))
            _ = ann.expect(type: "welcome")
            _ = ben.expect(type: "welcome")
            ann.send(#"{"type":"op","id":"s","op":"snap","x":100,"y":100,"shapeId":"s"}"#)
            ann.send(#"{"type":"op","id":"m","op":"move","shape":"s","phase":"begin"}"#)
            ann.send(#"{"type":"op","id":"u","op":"move","shape":"s","phase":"update","dx":40,"dy":0}"#)
            #expect(ben.expect(type: "delta", where: { $0["live"] == .bool(true) }) != nil)
        }

        @Test("--help, with or without serve, lists every option the table of docs/running.md documents, and the table every option --help lists", arguments: [["--help"], ["serve", "--help"]])
        func help(arguments: [String]) throws {
            let (status, text) = try runServerCommand(arguments)
            #expect(status == 0)
            let running = try String(contentsOf: packageRoot.appendingPathComponent("docs/running.md"), encoding: .utf8)
            let section = running.components(separatedBy: "\n## Options\n").last?.components(separatedBy: "\n## ").first ?? ""
            // The first column of each row of the options table: `--width`, `--height` and the like.
            let options = section.split(separator: "\n").filter { $0.hasPrefix("| `--") }.flatMap { row in
                row.split(separator: "|")[0].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            }
            #expect(options.count >= 25 && options.contains("--auth-secret") && options.contains("--idle-timeout"))
            for option in options { #expect(text.contains(option + " "), "\(option)") }
            // And the other way: every option --help lists has its row.
            let listed = text.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  --") else { return nil }
                return line.dropFirst(2).split(separator: " ").first.map { String($0.split(separator: ",")[0]) }
            }
            #expect(listed.count >= 25)
            for option in listed where option != "--help" && option != "--version" {
                #expect(options.contains(option), "\(option) is in --help but not in docs/running.md's table")
            }
        }
    }
}
