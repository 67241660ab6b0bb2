import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

/// Runs the built `snapboard-bench` with `arguments`; returns its status and what it printed.
func runBench(_ arguments: [String]) throws -> (status: Int32, stdout: String) {
    let process = Process()
    process.executableURL = serverBinary.deletingLastPathComponent().appendingPathComponent("snapboard-bench")
    process.arguments = arguments
    let stdout = Pipe()
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    try process.run()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self))
}

extension EndToEnd {
    /// `make bench`'s workloads in miniature, on the debug build: each still runs and reports what the
    /// summary reads. How fast they run is the benchmark's business, never a test's.
    @Suite("make bench's workloads still run", .serialized)
    struct BenchWorkloadTests {
        func report(_ path: String) throws -> JSONValue { try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))) }
        func int(_ v: JSONValue?) -> Int { if case .number(let n)? = v { Int(n) } else { -1 } }
        func temporary(_ name: String) -> String {
            FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(name)-\(getpid())-\(UUID().uuidString).json").path
        }

        /// Runs `snapboard-load` with `arguments` against a fresh server started with `serverArguments`, and
        /// returns its JSON report after checking that it exited 0.
        func load(_ arguments: [String], server serverArguments: [String] = [], comment: String = "") throws -> JSONValue {
            let server = try ServerProcess(serverArguments)
            let json = temporary("load")
            defer { try? FileManager.default.removeItem(atPath: json) }
            let run = try runLoad(["--url", "ws://127.0.0.1:\(server.port)", "--server-pid", String(server.process.processIdentifier)]
                                  + arguments + ["--json", json])
            #expect(run.status == 0, "\(comment)\(run.stdout)\n\(run.stderr)")
            return try report(json)
        }

        @Test("W1: all-dragging rooms with begins and ends at once report CPU per op, both latencies, the tool's send lag and the server's figures")
        func w1() throws {
            let r = try load(["--canvases", "2", "--clients", "10", "--shapes", "10", "--gesture-steps", "30", "--moves-only", "--aligned",
                              "--duration", "1.5", "--warmup", "0.5", "--ramp", "0.2"], server: ["--width", "4096", "--height", "4096"])
            #expect(int(r["connections"]?["opened"]) == 20 && int(r["drops"]) == 0)
            #expect(int(r["peerLatency"]?["count"]) > 0 && int(r["ackLatency"]?["count"]) > 0)
            // The tool's own lateness, measured for every op due in the window: both latencies include it.
            #expect(int(r["sendLag"]?["count"]) == int(r["windowOps"]) && int(r["windowOps"]) > 0, "\(r["sendLag"] ?? .null)")
            if case .number(let perOp)? = r["server"]?["cpuMicrosPerOp"] { #expect(perOp > 0) } else { Issue.record("no CPU per op") }
            #expect(r["config"]?["transport"] == .string("raw"), "ws:// runs on the tool's own transport")
        }

        @Test("W2: a big room of 1.1 clients (whole presence lists) and of revision-4 clients, without resyncs, every commit acked once")
        func w2() throws {
            for revision in ["1", "4"] {
                // Gestures of 3 steps commit often, so that acks are made durable while a tick writes its 60 frames
                // (the server takes storage's handover between them).
                let r = try load(["--canvases", "1", "--clients", "60", "--draggers", "3", "--revision", revision, "--gesture-steps", "3",
                                  "--duration", "1.5", "--warmup", "0.5", "--ramp", "1"], comment: "revision \(revision): ")
                #expect(int(r["connections"]?["opened"]) == 60 && int(r["resyncs"]) == 0 && int(r["drops"]) == 0, "revision \(revision)")
                #expect(int(r["ops"]?["acked"]) == int(r["ops"]?["committing"]) && int(r["ops"]?["acked"]) > 50, "\(r["ops"] ?? .null)")
                #expect(int(r["convergence"]?["mismatched"]) == 0 && int(r["convergence"]?["replicas"]) == 60, "\(r["convergence"] ?? .null)")
            }
        }

        @Test("W6: a join storm on a canvas of more shapes than a session's burst of ops: seeded within the rate, every welcome reported")
        func w6() throws {
            let r = try load(["--canvases", "1", "--clients", "4", "--draggers", "2", "--shapes", "3000", "--storm", "20", "--duration", "3",
                              "--warmup", "0.5", "--ramp", "0.2"], server: ["--width", "4096", "--height", "4096"])
            // 3,000 seed ops at once would pass the server's 2,000-op burst: refused, then closed for too many errors.
            #expect(int(r["drops"]) == 0 && r["ops"]?["rejected"] == .object([:]), "\(r["ops"] ?? .null)")
            #expect(int(r["convergence"]?["replicas"]) == 4 && int(r["convergence"]?["mismatched"]) == 0)
            let storm = r["joinStorm"]
            #expect(int(storm?["clients"]) == 20 && int(storm?["welcomed"]) == 20 && int(storm?["failed"]) == 0)
            if case .number(let last)? = storm?["lastWelcomeSeconds"] { #expect(last > 0) } else { Issue.record("no last welcome") }
            if case .number(let slowest)? = storm?["slowestWelcomeSeconds"] { #expect(slowest > 0) } else { Issue.record("no slowest welcome") }
        }

        @Test("The benchmarks without sockets (drags, storm) run and write the figures the summary reads")
        func benchmarks() throws {
            let drags = temporary("drags"), storm = temporary("storm")
            defer { for path in [drags, storm] { try? FileManager.default.removeItem(atPath: path) } }
            let w1 = try runBench(["drags", "--rooms", "2", "--clients", "10", "--seconds", "1", "--json", drags])
            #expect(w1.status == 0 && w1.stdout.contains("1200 ops in"), "\(w1.stdout)")
            let room = try report(drags)["W1-room"]
            #expect(int(room?["ops"]) == 1200 && int(room?["framesOut"]) > 0)
            let w6 = try runBench(["storm", "--shapes", "500", "--joiners", "20", "--json", storm])
            #expect(w6.status == 0, "\(w6.stdout)")
            #expect(int(try report(storm)["W6"]?["joiners"]) == 20)
        }
    }
}
