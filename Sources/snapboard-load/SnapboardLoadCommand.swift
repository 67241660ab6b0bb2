import ArgumentParser
import Foundation
import SnapboardLoad
import SnapboardProtocol
import SnapboardLWSClient

@main
struct SnapboardLoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapboard-load",
        abstract: "Simulate many users dragging shapes on Snapboard canvases, and measure the server.",
        discussion: """
            Opens --canvases × --clients WebSocket connections on one event loop. On each canvas the first \
            --draggers clients drag, pinch and rotate shapes at --rate ops per second on an open-loop \
            schedule (with --workload content: type text, move selections and drag arrows' ends); the rest watch. After --warmup seconds it measures for --duration seconds, then ends \
            every gesture, waits for the acks, and checks that every client's replica equals \
            GET /v1/canvases/{id}. A progress line goes to stderr every second; the report goes to stdout \
            (and to --json FILE). Exits 1 when a replica differs from the server or a canvas cannot be fetched \
            to check, 2 when nothing connects.
            """)

    @Option(help: "The server's WebSocket base URL.") var url = "ws://127.0.0.1:8080"
    @Option(help: "An access token valid for every canvas the run uses (canvas claim load-* or *), for a server that requires one (SNAPBOARD_TOKEN).")
    var token: String?
    @Option(help: "Canvases to spread the clients over.") var canvases = 10
    @Option(help: "Clients per canvas.") var clients = 10
    @Option(help: "Draggers per canvas (the first clients; default all of them); the others only watch.") var draggers: Int?
    @Option(help: "Ops per second per dragger.") var rate = 60.0
    @Option(help: "Seconds measured, after the warm-up.") var duration = 10.0
    @Option(help: "Seconds of load before measuring starts.") var warmup = 2.0
    @Option(help: "Seconds over which the connections are opened.") var ramp = 1.0
    @Option(help: "What the draggers do: drags (drag, pinch and turn shapes) or content (type text, move selections of 20 shapes, drag arrows' ends).")
    var workload = LoadPlan.Workload.drags
    @Option(help: "Shapes each canvas is seeded with (default twice the draggers, 20 times with --workload content; with at least as many as draggers, no two share a shape).") var shapes: Int?
    @Option(help: "Ops in every gesture, begin and end included (default: 0.4–1.6 s of ops at --rate).") var gestureSteps: Int?
    @Flag(help: "Only moves (no pinches or rotations).") var movesOnly = false
    @Flag(help: "Every dragger on one schedule: gestures begin and end all at once (default: spread out).") var aligned = false
    @Option(help: "Watchers that join canvas 0 a third of the way into the window (a join storm).") var storm = 0
    @Option(help: "Seconds over which the storm's watchers connect.") var stormWithin = 1.0
    @Option(help: "Seed for canvas names, shapes and gestures: the same seed sends the same ops.") var seed: UInt64 = 1
    @Option(help: "The connections' transport: raw (the tool's own epoll loop, ws:// only) or lws (libwebsockets); both ws:// only.")
    var transport: TransportChoice?
    @Option(help: "Event loop under libwebsockets' connections (--transport lws): libev (epoll) or poll.") var eventLoop = EventLoopChoice.libev
    @Option(help: "The protocol revision the clients ask for (P1): 1 connects them as 1.1 clients, which get joins and leaves with the whole session list (P11).")
    var revision = ClientMessage.protocolRevision
    @Option(help: "Write the report as JSON to this file.") var json: String?
    @Option(help: "The server's process id, to report its CPU and memory (Linux /proc).") var serverPid: Int32?

    func validate() throws {
        guard canvases > 0, clients > 0 else { throw ValidationError("--canvases and --clients must be positive") }
        guard (0...clients).contains(draggers ?? 0) else { throw ValidationError("--draggers must be within 0...--clients") }
        guard rate > 0, rate <= 1000 else { throw ValidationError("--rate must be within (0, 1000]") }
        guard duration > 0, warmup >= 0, ramp >= 0 else { throw ValidationError("--duration must be positive, --warmup and --ramp not negative") }
        guard (gestureSteps ?? 2) >= 2 else { throw ValidationError("--gesture-steps must be at least 2") }
        guard storm >= 0, stormWithin >= 0 else { throw ValidationError("--storm and --storm-within must not be negative") }
        guard (shapes ?? 0) >= 0 else { throw ValidationError("--shapes must not be negative") }
        guard transport != .raw || url.hasPrefix("ws://") else { throw ValidationError("--transport raw speaks ws:// only") }
        guard !url.lowercased().hasPrefix("wss://") else {
            throw ValidationError("snapboard-load does not do TLS: give it the server's ws:// address on loopback, or the proxy's plain one")
        }
        guard (1...ClientMessage.protocolRevision).contains(revision) else {
            throw ValidationError("--revision must be within 1...\(ClientMessage.protocolRevision)")
        }
    }

    func run() throws {
        let address = try WebSocketAddress(url: url)
        let draggers = self.draggers ?? clients
        var plan = LoadPlan(canvases: canvases, clients: clients, draggers: draggers, rate: rate,
                            shapes: shapes ?? (workload == .content ? LoadPlan.selectionSize : 2) * draggers, seed: seed)
        plan.workload = workload
        plan.gestureSteps = gestureSteps
        plan.movesOnly = movesOnly
        plan.aligned = aligned
        var config = LoadReport.Config(
            url: url, canvases: canvases, clients: clients, draggers: plan.draggers, shapes: plan.shapes,
            rate: rate, duration: duration, warmup: warmup, ramp: ramp, seed: seed)
        (config.gestureSteps, config.movesOnly, config.aligned) = (gestureSteps, movesOnly, aligned)
        config.workload = workload.rawValue
        (config.storm, config.stormWithin) = (storm, stormWithin)
        let transport = self.transport ?? .raw
        config.transport = transport.rawValue
        config.revision = revision
        let run = LoadRun(plan: plan, host: address.host, port: address.port, warmup: warmup, duration: duration,
                          ramp: ramp, sampler: serverPid.map(ProcessSampler.init),
                          transport: transport, libev: eventLoop == .libev, config: config)
        run.token = token ?? ProcessInfo.processInfo.environment["SNAPBOARD_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        try run.run()
        let unchecked = run.report.connections.opened > 0 ? checkConvergence(run, plan: plan, host: address.host, port: address.port) : 0
        run.stop()
        var report = run.report
        report.convergence.unchecked = unchecked
        print(report.table())
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
        }
        if report.connections.opened == 0 { throw ExitCode(2) }
        if report.convergence.mismatched > 0 || report.convergence.unchecked > 0 { throw ExitCode(1) }
    }

    /// Fetches each canvas and compares it with its replicas, giving stragglers up to 10 s to catch up.
    /// Returns how many canvases could not be fetched.
    private func checkConvergence(_ run: LoadRun, plan: LoadPlan, host: String, port: Int) -> Int {
        var unchecked = 0
        for canvas in 0..<plan.canvases {
            let deadline = Date().addingTimeInterval(10)
            while true {
                let final = Date() >= deadline
                let authorization = run.token.map { ["Authorization: Bearer \($0)"] } ?? []
                guard let (status, body) = try? httpGet(host: host, port: port, "/v1/canvases/\(plan.canvasName(canvas))", headers: authorization),
                      status == 200, let snapshot = Convergence.snapshot(fromBody: body)
                else {
                    FileHandle.standardError.write(Data("cannot fetch canvas \(plan.canvasName(canvas))\n".utf8))
                    unchecked += 1
                    break
                }
                if run.compare(canvas: canvas, serverSeq: snapshot.seq, shapes: snapshot.shapes, final: final) != nil { break }
                usleep(50_000)
            }
        }
        return unchecked
    }
}

extension LoadPlan.Workload: ExpressibleByArgument {}

extension TransportChoice: ExpressibleByArgument {}

/// `--event-loop`: what the connections' `WebSocketLoop` runs on.
enum EventLoopChoice: String, ExpressibleByArgument, CaseIterable {
    case libev
    case poll
}
