import Foundation
import SnapboardProtocol
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

        @Test("--help lists every documented option")
        func help() throws {
            let (_, text) = try runServerCommand(["serve", "--help"])
            for option in ["--host", "--port", "--data", "--durability", "--width", "--height", "--grid-pitch", "--grid-divisions", "--snap-threshold",
                           "--snap-release-margin", "--tick-ms", "--max-message-bytes", "--lease-timeout", "--idle-unload",
                           "--max-queued-bytes", "--send-buffer-bytes", "--ops-per-second", "--log-level"] {
                #expect(text.contains(option), "\(option)")
            }
        }
    }
}
