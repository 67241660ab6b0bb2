import Dispatch
import Foundation
import HeapModule
import Histogram
import SnapboardClient
import SnapboardCore
import SnapboardLoad
import SnapboardProtocol
import SnapboardLWSClient

/// One run of the load: every connection on one `WebSocketLoop`, every decision on its service thread.
///
/// Phases: connect everyone (spread over the ramp), seed each canvas with shapes, run the warm-up and the
/// measured window, then drain: every dragger ends its gesture and waits for the acks. The schedule is
/// open loop: dragger `d` sends its `k`-th op at `start + phase(d) + k / rate` whatever the server does,
/// and latency counts from that intended time, so a slow server cannot hide behind a slow sender.
final class LoadRun: WebSocketLoopDelegate, @unchecked Sendable {
    enum Phase { case connecting, seeding, running, draining, done }

    struct Client {
        let canvas: Int
        let index: Int
        var connection: WebSocketConnection?
        var replica = CanvasReplica()
        var welcomes = 0
        var finished = false
        /// The next op counter, and when recent ops were meant to go out.
        var counter = 0
        var log: SendLog?
        var rng: SeededGenerator
        var shapes: [ShapeID] = []
        var nextShape = 0
        var gesture: GesturePlan?
        var step = 0
        /// Counters of committing ops not yet acked or rejected.
        var awaiting: Set<Int> = []
        /// One of the watchers of a join storm, connected in the middle of the window.
        var storm = false
        var isDragger: Bool { !shapes.isEmpty }
    }

    /// When a dragger's next op is due.
    struct Due: Comparable {
        var time: Int64
        var client: Int
        static func < (a: Due, b: Due) -> Bool { (a.time, a.client) < (b.time, b.client) }
    }

    let plan: LoadPlan
    let host: String
    /// An access token sent with every connection, for servers that require one.
    var token: String?
    let port: Int
    let warmup: Double, duration: Double, ramp: Double
    let sampler: ProcessSampler?
    let loop: WebSocketLoop
    let finished = DispatchSemaphore(value: 0)
    var report: LoadReport

    // Service thread only.
    var clients: [Client] = []
    var phase = Phase.connecting
    var heap = Heap<Due>()
    var connectsStarted = 0
    var settled = 0
    var seedsAwaited = 0
    var begun: Int64 = 0
    var measureStart: Int64 = .max
    var measureEnd: Int64 = .max
    var drainDeadline: Int64 = .max
    var nextProgress: Int64 = 0
    let period: Int64
    var ack = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    var peer = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    var secondPeer = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    var secondOps = 0, secondDeltas = 0
    /// The server's CPU seconds when the window opened and closed, and when that was.
    var cpuAtStart: (seconds: Double, at: Int64)?
    var cpuAtEnd: (seconds: Double, at: Int64)?
    /// The same for this process.
    var ownCPUAtStart: (seconds: Double, at: Int64)?
    var rssPeak = 0.0
    /// The clients of the plan; storm watchers come after them.
    let planned: Int
    var stormStart: Int64 = .max
    var stormConnects = 0

    init(plan: LoadPlan, host: String, port: Int, warmup: Double, duration: Double, ramp: Double,
         sampler: ProcessSampler?, libev: Bool, config: LoadReport.Config) {
        loop = WebSocketLoop(libev: libev)
        self.plan = plan
        self.host = host
        self.port = port
        self.warmup = warmup
        self.duration = duration
        self.ramp = ramp
        self.sampler = sampler
        self.period = Int64((1_000_000 / plan.rate).rounded())
        report = LoadReport(config: config)
        for canvas in 0..<plan.canvases {
            for index in 0..<plan.clients {
                var client = Client(canvas: canvas, index: index, rng: plan.generator(canvas: canvas, client: index))
                if index < plan.draggers { client.shapes = plan.shapes(of: index) }
                if client.isDragger || index == 0 { client.log = SendLog() }
                clients.append(client)
            }
        }
        planned = clients.count
        for k in 0..<config.storm {
            var client = Client(canvas: 0, index: plan.clients + k, rng: plan.generator(canvas: 0, client: plan.clients + k))
            client.storm = true
            clients.append(client)
        }
        if config.storm > 0 { report.joinStorm = LoadReport.JoinStorm(clients: config.storm) }
    }

    /// Runs everything and returns when the drain is over (or nothing could connect).
    func run() throws {
        if let sampler, let rss = sampler.rssMB() {
            report.server = LoadReport.Server(pid: sampler.pid, rssMB: rss)
        }
        loop.delegate = self
        // The loop's first timerFired starts the run.
        try loop.start(name: "snapboard-load")
        finished.wait()
    }

    /// Compares every replica of `canvas` with the server's canvas; returns how many replicas differ,
    /// or nil when some replica is still behind the server's seq.
    func compare(canvas: Int, serverSeq: Int, shapes: [ShapeID: Shape], final: Bool) -> Int? {
        let group = DispatchGroup()
        nonisolated(unsafe) var result: Int?
        group.enter()
        loop.perform { [self] _ in
            defer { group.leave() }
            let range = canvas * plan.clients..<(canvas + 1) * plan.clients
            let live = range.filter { clients[$0].connection?.isOpen == true && clients[$0].welcomes > 0 }
            if !final, live.contains(where: { clients[$0].replica.seq < serverSeq }) { return }
            var differing = 0
            for i in live {
                let c = clients[i]
                let diff = Convergence.differences(replica: c.replica.shapes, replicaSeq: c.replica.seq, server: shapes, serverSeq: serverSeq)
                if !diff.isEmpty {
                    differing += 1
                    if report.convergence.examples.count < 5 {
                        report.convergence.examples.append("\(plan.canvasName(canvas)) client \(c.index): " + diff.joined(separator: ", "))
                    }
                }
            }
            report.convergence.replicas += live.count
            report.convergence.canvases += 1
            report.convergence.mismatched += differing
            result = differing
        }
        group.wait()
        return result
    }

    /// Stops the loop and closes every connection.
    func stop() {
        loop.stop()
        loop.wait()
    }

    // MARK: Service thread

    func timerFired() {
        let now = monotonicMicros()
        if begun == 0 {
            begun = now
            nextProgress = now + 1_000_000
        }
        switch phase {
        case .connecting: connectDue(now)
        case .seeding: break
        case .running, .draining:
            sendDue(now)
            if phase == .running, now >= stormStart { connectStorm(now) }
        case .done: return
        }
        if now >= nextProgress {
            progress(now)
            nextProgress += 1_000_000
        }
        if ownCPUAtStart == nil, now >= measureStart {
            ownCPUAtStart = (ownCPUSeconds(), now)
            if let sampler, let cpu = sampler.cpuSeconds() { cpuAtStart = (cpu, now) }
        }
        if phase == .running, now >= measureEnd {
            if let sampler, let cpu = sampler.cpuSeconds() { cpuAtEnd = (cpu, now) }
            if let start = ownCPUAtStart, now > start.at {
                report.loadCpuPercent = (ownCPUSeconds() - start.seconds) / (Double(now - start.at) / 1_000_000) * 100
            }
            phase = .draining
            drainDeadline = now + 30_000_000
        }
        if phase == .draining, isDrained || now >= drainDeadline { finish(now) }
        guard phase != .done else { return }
        var next = nextProgress
        if phase == .connecting { next = min(next, now + 5_000) }
        if phase == .running || phase == .draining, let due = heap.min { next = min(next, due.time) }
        if phase == .running { next = min(next, now < measureStart ? measureStart : measureEnd) }
        if phase == .running, stormConnects < clients.count - planned { next = min(next, max(stormStart, now + 5_000)) }
        loop.schedule(after: Int(max(1, next - now)))
    }

    func connectDue(_ now: Int64) {
        let total = planned
        let due = ramp <= 0 ? total : min(total, Int(Double(total) * Double(now - begun) / (ramp * 1_000_000)) + 1)
        while connectsStarted < due {
            connect(connectsStarted)
            connectsStarted += 1
        }
    }

    /// The join storm's watchers, spread over `stormWithin` seconds from `stormStart`.
    func connectStorm(_ now: Int64) {
        let total = clients.count - planned
        let within = report.config.stormWithin
        let due = within <= 0 ? total : min(total, Int(Double(total) * Double(now - stormStart) / (within * 1_000_000)) + 1)
        while stormConnects < due {
            connect(planned + stormConnects)
            stormConnects += 1
        }
    }

    func connect(_ i: Int) {
        let c = clients[i]
        let path = "/v1/canvases/\(plan.canvasName(c.canvas))?client=\(plan.clientID(canvas: c.canvas, client: c.index))&name=c\(c.index)&\(CanvasReplica.revisionQuery)"
            + (token.map { "&token=" + $0 } ?? "")
        clients[i].connection = loop.connect(host: host, port: port, path: path, tag: i)
    }

    /// A storm watcher was welcomed (or gave up).
    func stormSettled(_ i: Int, welcomed: Bool, at now: Int64) {
        guard var storm = report.joinStorm else { return }
        if welcomed {
            storm.welcomed += 1
            storm.lastWelcomeSeconds = max(storm.lastWelcomeSeconds, Double(now - stormStart) / 1_000_000)
        } else {
            storm.failed += 1
        }
        report.joinStorm = storm
    }

    func opened(_ connection: WebSocketConnection) {
        report.connections.opened += 1
    }

    func failed(_ connection: WebSocketConnection, _ why: String) {
        report.connections.failed += 1
        if report.connections.failed <= 3 { FileHandle.standardError.write(Data("connection failed: \(why)\n".utf8)) }
        clients[connection.tag].finished = true
        if clients[connection.tag].storm { return stormSettled(connection.tag, welcomed: false, at: monotonicMicros()) }
        settle()
    }

    func closed(_ connection: WebSocketConnection, code: UInt16?, reason: String) {
        guard phase != .done else { return }
        report.drops += 1
        report.connections.closeCodes[code.map(String.init) ?? "none", default: 0] += 1
        let i = connection.tag
        clients[i].finished = true
        if clients[i].welcomes == 0 {
            if clients[i].storm { stormSettled(i, welcomed: false, at: monotonicMicros()) } else { settle() }
        }
        clients[i].gesture = nil
        if phase == .seeding, clients[i].index == 0, !clients[i].awaiting.isEmpty {
            // A seeder lost: its canvas runs with the shapes that made it, and the others need not wait.
            seedsAwaited -= clients[i].awaiting.count
            clients[i].awaiting = []
            if seedsAwaited == 0 { startRunning() }
        }
        clients[i].awaiting = []
    }

    /// One more connection has either been welcomed or given up; the last one starts the seeding.
    func settle() {
        settled += 1
        guard phase == .connecting, settled == planned else { return }
        guard report.connections.opened > 0 else { return finish(monotonicMicros()) }
        phase = .seeding
        FileHandle.standardError.write(Data("connected: \(report.connections.opened) open, \(report.connections.failed) failed; seeding\n".utf8))
        for i in clients.indices where clients[i].index == 0 && plan.shapes > 0 {
            guard let connection = clients[i].connection, connection.isOpen else { continue }
            let ops = plan.seedOps(canvas: clients[i].canvas, width: clients[i].replica.width, height: clients[i].replica.height)
            for (n, op) in ops.enumerated() {
                loop.send(connection, op)
                clients[i].awaiting.insert(n)
            }
            clients[i].counter = ops.count
            seedsAwaited += ops.count
        }
        if seedsAwaited == 0 { startRunning() }
    }

    func startRunning() {
        // A moment for the last seeding deltas to reach every watcher.
        let now = monotonicMicros() + 200_000
        phase = .running
        measureStart = now + Int64(warmup * 1_000_000)
        measureEnd = measureStart + Int64(duration * 1_000_000)
        if clients.count > planned { stormStart = measureStart + Int64(duration * 1_000_000 / 3) }
        for i in clients.indices where clients[i].isDragger && !clients[i].finished {
            // Spread out, gestures of fixed length begin and end anywhere in their cycle, not all in one period.
            let cycle = UInt64(period) * UInt64(plan.gestureSteps ?? 1)
            let offset = plan.aligned ? 0 : Int64(clients[i].rng.next() % cycle)
            heap.insert(Due(time: now + offset, client: i))
        }
        FileHandle.standardError.write(Data("running: \(heap.count) draggers, warm-up \(warmup) s, then \(duration) s measured\n".utf8))
    }

    func sendDue(_ now: Int64) {
        while let due = heap.min, due.time <= now {
            _ = heap.removeMin()
            if tick(due.client, at: due.time) { heap.insert(Due(time: due.time + period, client: due.client)) }
        }
    }

    /// Dragger `i`'s op for the slot at `time`; false when it has no more to send.
    func tick(_ i: Int, at time: Int64) -> Bool {
        guard !clients[i].finished, let connection = clients[i].connection, connection.isOpen else { return false }
        let draining = phase == .draining
        if clients[i].gesture == nil {
            if draining { return false }
            guard let plan = planGesture(i) else { return true }
            clients[i].gesture = plan
            clients[i].step = 0
        }
        let gesture = clients[i].gesture!
        // Draining ends every gesture where it is now.
        let ends = draining || clients[i].step >= gesture.steps - 1
        let counter = clients[i].counter
        clients[i].counter += 1
        let id = OpTag(client: clients[i].index, counter: counter).text
        loop.send(connection, gesture.message(step: clients[i].step, id: id, ending: ends))
        clients[i].log?.record(counter: counter, at: time)
        if time >= measureStart, time < measureEnd { report.windowOps += 1 }
        if time >= measureStart {
            report.ops.sent += 1
            if ends { report.ops.committing += 1 }
        }
        secondOps += 1
        if ends {
            clients[i].awaiting.insert(counter)
            clients[i].gesture = nil
        } else {
            clients[i].step += 1
        }
        return !(draining && ends)
    }

    func planGesture(_ i: Int) -> GesturePlan? {
        let c = clients[i]
        for attempt in 0..<c.shapes.count {
            let id = c.shapes[(c.nextShape + attempt) % c.shapes.count]
            guard let shape = c.replica.shapes[id] else { continue }
            clients[i].nextShape = (c.nextShape + attempt + 1) % c.shapes.count
            let others = [Shape](c.replica.shapes.values.prefix(64))
            return GesturePlan.plan(shape, others: others, width: c.replica.width, height: c.replica.height,
                                    rate: plan.rate, steps: plan.gestureSteps, movesOnly: plan.movesOnly, using: &clients[i].rng)
        }
        return nil
    }

    var isDrained: Bool {
        heap.isEmpty && !clients.contains { !$0.awaiting.isEmpty }
    }

    func finish(_ now: Int64) {
        phase = .done
        let end = min(now, measureEnd)
        report.seconds = measureStart == .max ? 0 : Double(max(0, end - measureStart)) / 1_000_000
        report.ackLatency = LatencySummary(ack)
        report.peerLatency = LatencySummary(peer)
        report.ackCDF = cdfPoints(ack)
        report.peerCDF = cdfPoints(peer)
        if let sampler, var server = report.server {
            if let start = cpuAtStart, let end = cpuAtEnd, end.at > start.at {
                server.cpuPercent = (end.seconds - start.seconds) / (Double(end.at - start.at) / 1_000_000) * 100
            }
            server.rssEndMB = sampler.rssMB() ?? server.rssEndMB
            server.rssPeakMB = max(rssPeak, server.rssEndMB)
            let open = clients.filter { $0.connection?.isOpen == true }.count
            if open > 0 { server.rssPerConnectionKB = (server.rssEndMB - server.rssBaselineMB) * 1024 / Double(open) }
            if let start = cpuAtStart, let end = cpuAtEnd {
                let micros = (end.seconds - start.seconds) * 1_000_000
                if report.windowOps > 0 { server.cpuMicrosPerOp = micros / Double(report.windowOps) }
                if report.windowDeliveries > 0 { server.cpuMicrosPerDelivery = micros / Double(report.windowDeliveries) }
            }
            report.server = server
        }
        finished.signal()
    }

    func progress(_ now: Int64) {
        let elapsed = Double(now - begun) / 1_000_000
        if let sampler, let rss = sampler.rssMB() { rssPeak = max(rssPeak, rss) }
        var line: String
        switch phase {
        case .connecting, .seeding:
            line = String(format: "%5.1fs %@: %d open, %d failed", elapsed, phase == .connecting ? "connecting" : "seeding",
                          report.connections.opened, report.connections.failed)
        case .running, .draining, .done:
            let p99 = secondPeer.totalCount > 0 ? Double(secondPeer.valueAtPercentile(99)) / 1000 : 0
            let stage = now < measureStart ? "warm-up" : phase == .draining ? "draining" : "measuring"
            line = String(format: "%5.1fs %@: %d ops/s, %d deltas/s, p99 op→peer %.2f ms, %d open",
                          elapsed, stage, secondOps, secondDeltas, p99, report.connections.opened - report.drops)
            if now >= measureStart, phase == .running {
                report.timeline.append(LoadReport.Second(t: Int((now - measureStart) / 1_000_000), ops: secondOps, deltas: secondDeltas, p99PeerMs: p99))
            }
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
        secondOps = 0
        secondDeltas = 0
        secondPeer.reset()
    }
}
