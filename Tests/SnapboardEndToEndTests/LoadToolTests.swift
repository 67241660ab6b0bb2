import Foundation
import SnapboardLock
import SnapboardProtocol
import SnapboardTesting
import Testing

/// A temporary file for a run's `--json` report: `path` to pass to the tool, `read()` once the run is over.
/// It is removed when the test lets go of it.
final class ReportFile {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("load-\(getpid())-\(UUID().uuidString).json").path
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func read() throws -> JSONValue { try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))) }
}

/// Runs the built `snapboard-load` with `arguments`; returns its status, stdout and stderr. A run still going
/// after `limit` seconds is killed and recorded as an issue, so a tool that never finishes fails its test
/// instead of holding up the suite.
func runLoad(_ arguments: [String], limit: Double = 120, sourceLocation: SourceLocation = #_sourceLocation) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = serverBinary.deletingLastPathComponent().appendingPathComponent("snapboard-load")
    process.arguments = arguments
    let stdout = Pipe(), stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    let state = Locked<(exited: Bool, killed: Bool)>((false, false))
    process.terminationHandler = { _ in state.withLock { $0.exited = true } }
    try process.run()
    let pid = process.processIdentifier
    DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
        state.withLock { s in
            guard !s.exited else { return }
            s.killed = true
            kill(pid, SIGKILL)
        }
    }
    let err = Locked<Data>(Data())
    let reader = Thread { err.withLock { $0 = stderr.fileHandleForReading.readDataToEndOfFile() } }
    reader.start()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    if state.withLock({ $0.killed }), process.terminationReason == .uncaughtSignal, process.terminationStatus == SIGKILL {
        Issue.record("snapboard-load \(arguments.joined(separator: " ")) still ran after \(Int(limit)) s and was killed", sourceLocation: sourceLocation)
    }
    while !reader.isFinished { usleep(1000) }
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err.withLock { $0 }, as: UTF8.self))
}

extension EndToEnd {
    @Suite("snapboard-load against a real server", .serialized)
    struct LoadToolTests {
        @Test("A short run drags on two canvases, measures both latencies, and every replica converges on the server's canvas, on either transport",
              arguments: ["raw", "lws"])
        func shortRun(transport: String) throws {
            let server = try ServerProcess()
            let json = ReportFile()
            let run = try runLoad([
                "--url", "ws://127.0.0.1:\(server.port)", "--canvases", "2", "--clients", "4", "--draggers", "3",
                "--duration", "2", "--warmup", "0.5", "--ramp", "0.2", "--seed", "5", "--json", json.path,
                "--server-pid", String(server.process.processIdentifier), "--transport", transport,
            ])
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(run.stdout.contains("8 replicas on 2 canvases equal the server"))
            #expect(run.stderr.contains("measuring:"), "no progress line: \(run.stderr)")
            let report = try json.read()
            func int(_ v: JSONValue?) -> Int { if case .number(let n)? = v { Int(n) } else { -1 } }
            #expect(report["config"]?["transport"] == .string(transport))
            #expect(int(report["connections"]?["opened"]) == 8)
            #expect(int(report["connections"]?["failed"]) == 0 && int(report["drops"]) == 0 && int(report["resyncs"]) == 0)
            // 6 draggers at 60 Hz for 2 s: about 720 ops, every gesture end acked.
            let sent = int(report["ops"]?["sent"])
            #expect((500...900).contains(sent), "sent \(sent)")
            #expect(int(report["ops"]?["acked"]) == int(report["ops"]?["committing"]) && int(report["ops"]?["acked"]) > 0)
            #expect(report["ops"]?["errors"] == .object([:]) && report["ops"]?["rejected"] == .object([:]))
            // Each op reaches the 3 other clients of its canvas.
            let peers = int(report["peerLatency"]?["count"])
            #expect(peers > 2 * sent && peers <= 3 * sent, "peer samples \(peers) for \(sent) ops")
            #expect(int(report["convergence"]?["mismatched"]) == 0 && int(report["convergence"]?["replicas"]) == 8)
            if case .number(let rss)? = report["server"]?["rssEndMB"] { #expect(rss > 1) } else { Issue.record("no server figures") }
            // Each canvas was seeded with 6 shapes (twice the draggers) that the load moved around.
            let (status, body) = try httpGet(port: server.port, "/v1/canvases/load-5-1")
            guard case .array(let shapes)? = try JSONValue.parse(Array(body.utf8))["shapes"] else { Issue.record("no shapes"); return }
            #expect(status == 200 && shapes.count == 6)
        }

        @Test("--workload content types text, moves selections and drags arrows' ends on two canvases: commits acked, no errors, replicas converge")
        func contentRun() throws {
            let server = try ServerProcess()
            let json = ReportFile()
            let run = try runLoad([
                "--url", "ws://127.0.0.1:\(server.port)", "--workload", "content", "--canvases", "2", "--clients", "3",
                "--draggers", "2", "--duration", "2", "--warmup", "0.5", "--ramp", "0.2", "--seed", "8", "--json", json.path,
            ])
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(run.stdout.contains("6 replicas on 2 canvases equal the server"), "\(run.stdout)")
            #expect(run.stdout.contains("editing content") && run.stdout.contains("text drafts: not broadcast, not measured"))
            let report = try json.read()
            func int(_ v: JSONValue?) -> Int { if case .number(let n)? = v { Int(n) } else { -1 } }
            #expect(report["config"]?["workload"] == .string("content"))
            #expect(int(report["connections"]?["opened"]) == 6 && int(report["drops"]) == 0 && int(report["resyncs"]) == 0)
            #expect(int(report["ops"]?["sent"]) > 0)
            // Text drafts are acked by nothing and broadcast to nobody: only the ends count, and every one is acked.
            #expect(int(report["ops"]?["acked"]) > 0 && int(report["ops"]?["acked"]) == int(report["ops"]?["committing"]))
            #expect(report["ops"]?["errors"] == .object([:]) && report["ops"]?["rejected"] == .object([:]), "\(run.stdout)")
            #expect(int(report["peerLatency"]?["count"]) > 0)
            #expect(int(report["convergence"]?["mismatched"]) == 0 && int(report["convergence"]?["replicas"]) == 6)
            // 40 shapes (20 a dragger) and 20 arrows on each canvas, some of them with text committed now.
            let (status, body) = try httpGet(port: server.port, "/v1/canvases/load-8-0")
            guard case .array(let shapes)? = try JSONValue.parse(Array(body.utf8))["shapes"] else { Issue.record("no shapes"); return }
            #expect(status == 200 && shapes.count == 60)
            #expect(shapes.contains { if case .string(let text)? = $0["text"] { !text.isEmpty } else { false } })
            #expect(shapes.filter { $0["kind"] == .string("arrow") }.count == 20)
        }

        @Test("A watcher that reads more committed deltas in the window than its replica may lag behind (512) still converges: the oldest are applied in order as new ones come")
        func watcherBehindTheBound() throws {
            let server = try ServerProcess()
            let json = ReportFile()
            // 3 draggers committing 60 gestures a second each (a begin and an end at 120 Hz): the watcher reads
            // about 900 committed deltas in 5 s.
            let run = try runLoad(["--url", "ws://127.0.0.1:\(server.port)", "--canvases", "1", "--clients", "4", "--draggers", "3",
                                   "--rate", "120", "--gesture-steps", "2", "--duration", "5", "--warmup", "0.5", "--ramp", "0.2",
                                   "--seed", "3", "--json", json.path])
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(run.stdout.contains("4 replicas on 1 canvases equal the server"), "\(run.stdout)")
            let report = try json.read()
            guard case .number(let committed)? = report["ops"]?["committing"] else { Issue.record("no ops in the report"); return }
            #expect(committed > 600, "only \(committed) commits: the watcher's replica never passed the bound")
        }

        @Test("--url with a host name (localhost, as the docs write it) connects and checks convergence")
        func hostName() throws {
            let server = try ServerProcess()
            let run = try runLoad(["--url", "ws://localhost:\(server.port)", "--canvases", "1", "--clients", "2", "--draggers", "1",
                                   "--duration", "0.5", "--warmup", "0.2", "--ramp", "0.1"])
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(run.stdout.contains("2 replicas on 1 canvases equal the server"), "\(run.stdout)")
        }

        @Test("When the server shuts down mid-run, it counts the drops with their close code, does not hang, and exits 1 unchecked")
        func serverGoesAway() throws {
            let server = try ServerProcess()
            let json = ReportFile()
            let pid = server.process.processIdentifier
            let killer = Thread {
                usleep(1_500_000)
                kill(pid, SIGTERM)
            }
            killer.start()
            let started = Date()
            let run = try runLoad([
                "--url", "ws://127.0.0.1:\(server.port)", "--canvases", "2", "--clients", "3", "--duration", "3",
                "--warmup", "0.2", "--ramp", "0.1", "--json", json.path,
            ])
            #expect(Date().timeIntervalSince(started) < 20)
            #expect(run.status == 1, "\(run.stdout)")
            #expect(run.stdout.contains("2 canvases not checked"))
            let report = try json.read()
            #expect(report["drops"] == .number(6))
            #expect(report["connections"]?["closeCodes"] == .object(["1001": .number(6)]))
        }

        @Test("ws:// takes the raw transport unless told otherwise; --transport raw refuses wss://, and so does the tool without TLS")
        func transportChoice() throws {
            let server = try ServerProcess()
            let json = ReportFile()
            let run = try runLoad(["--url", "ws://127.0.0.1:\(server.port)", "--canvases", "1", "--clients", "2", "--draggers", "1",
                                   "--duration", "0.5", "--warmup", "0.2", "--ramp", "0.1", "--json", json.path])
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(run.stdout.contains("(transport raw)"), "\(run.stdout)")
            let report = try json.read()
            #expect(report["config"]?["transport"] == .string("raw"))
            let refused = try runLoad(["--url", "wss://127.0.0.1:\(server.port)", "--transport", "raw"])
            #expect(refused.status != 0 && refused.stderr.contains("--transport raw speaks ws:// only"), "\(refused.stderr)")
            for transport in [[], ["--transport", "lws"]] {
                let secure = try runLoad(["--url", "wss://127.0.0.1:\(server.port)"] + transport)
                #expect(secure.status != 0 && secure.stderr.contains("snapboard-load does not do TLS"), "\(secure.stderr)")
            }
        }

        @Test("With no server to connect to, it reports every connection failed and exits with status 2")
        func nothingToConnectTo() throws {
            let port = try ServerProcess().port  // released at once: nothing listens there any more
            let run = try runLoad(["--url", "ws://127.0.0.1:\(port)", "--canvases", "1", "--clients", "3", "--duration", "1"])
            #expect(run.status == 2)
            #expect(run.stdout.contains("0 opened, 3 failed"), "\(run.stdout)")
        }
    }
}
