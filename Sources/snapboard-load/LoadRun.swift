import DequeModule
import Dispatch
import Foundation
import HeapModule
import Histogram
import SnapboardClient
import SnapboardCore
import SnapboardLoad
import SnapboardProtocol
import SnapboardLWSClient
import SnapboardRawWebSocket

/// One run of the load: every connection on one transport's loop, every decision on its thread.
///
/// Phases: connect everyone (spread over the ramp), seed each canvas with shapes, run the warm-up and the
/// measured window, then drain: every dragger ends its gesture and waits for the acks. The schedule is
/// open loop: dragger `d` sends its `k`-th op at `start + phase(d) + k / rate` whatever the server does,
/// and latency counts from that intended time, so a slow server cannot hide behind a slow sender.
final class LoadRun: @unchecked Sendable {
    enum Phase { case connecting, seeding, running, draining, done }

    struct Client {
        let canvas: Int
        let index: Int
        var connection: (any LoadConnection)?
        var replica = CanvasReplica()
        /// A watcher's committed deltas read during the window and not yet applied to its replica, oldest first.
        var unapplied = Deque<JSONValue>()
        var welcomes = 0
        var finished = false
        /// The next op counter, and this client's row of `sends` (when its recent ops were meant to go
        /// out), or -1 for a watcher, which sends none.
        var counter = 0
        var logRow = -1
        var rng: SeededGenerator
        var shapes: [ShapeID] = []
        var nextShape = 0
        /// Gestures planned so far: a content dragger's turn among its kinds.
        var gestures = 0
        var gesture: GesturePlan?
        var step = 0
        /// Counters of committing ops not yet acked or rejected.
        var awaiting: Set<Int> = []
        /// One of the watchers of a join storm, connected in the middle of the window.
        var storm = false
        /// When this client's connection was started.
        var connectStart: Int64 = 0
        /// The seeding client's ops not sent yet, and how many it has sent.
        var seeds: [[UInt8]] = []
        var seedsSent = 0
        var isDragger: Bool { !shapes.isEmpty }
    }

    /// A frame's bytes and the skim's `tags` and `ends` for it (`FrameSkim.live`).
    struct SkimmedFrame {
        var bytes: [UInt8] = []
        var tags: [OpTag] = []
        var ends: [Int] = []

        /// Whether `frame` is these bytes; never for an empty frame, which the skim finds malformed.
        func holds(_ frame: UnsafeRawBufferPointer) -> Bool {
            guard let start = frame.baseAddress, frame.count == bytes.count, !bytes.isEmpty else { return false }
            return bytes.withUnsafeBytes { memcmp($0.baseAddress!, start, frame.count) == 0 }
        }
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
    let transport: any LoadTransport
    let finished = DispatchSemaphore(value: 0)
    var report: LoadReport

    // Service thread only.
    var clients: [Client] = []
    var phase = Phase.connecting
    var heap = Heap<Due>()
    var connectsStarted = 0
    var settled = 0
    var seedsAwaited = 0
    var seedingStart: Int64 = 0
    var begun: Int64 = 0
    var measureStart: Int64 = .max
    var measureEnd: Int64 = .max
    var drainDeadline: Int64 = .max
    var nextProgress: Int64 = 0
    let period: Int64
    /// The most ops one timer callback sends (`sendDue`).
    static let sendBatch = 2_000
    var ack = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    var peer = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    /// Op due → written to its socket: the tool's own lateness, which both latencies above include.
    var sendLag = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    /// This second's op → peer, for the progress line and the timeline: two digits and up to a minute (a
    /// tenth of the counters of the run's histograms), since it is cleared every second.
    var secondPeer = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .two)
    var secondOps = 0, secondDeltas = 0
    /// Every sender's recent ops, a row each (`Client.logRow`).
    var sends = SendTable(rows: 0)
    /// The live-delta skim's buffers, reused for every frame.
    var skimTags: [OpTag] = []
    var skimEnds: [Int] = []
    /// The last frame of live deltas skimmed on each canvas, and what the skim found in it
    /// (`received(_:lent:)`): in a large room every watcher gets the same tick frame.
    var lastSkimmed: [SkimmedFrame] = []
    /// The committed deltas last parsed on each canvas, the newest last, and what they parsed to
    /// (`parsed(_:type:canvas:)`).
    var lastParsed: [[(bytes: ArraySlice<UInt8>, value: JSONValue)]] = []
    /// How many committed deltas of a canvas `lastParsed` keeps: seconds of them at the standard workloads.
    static let parsedKept = 64
    /// The op being sent, reused for every op.
    var sendBuffer: [UInt8] = []
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
         sampler: ProcessSampler?, transport: TransportChoice, libev: Bool, config: LoadReport.Config) {
        self.transport = transport == .raw ? RawWebSocketLoop() : WebSocketLoop(libev: libev)
        self.plan = plan
        self.host = host
        self.port = port
        self.warmup = warmup
        self.duration = duration
        self.ramp = ramp
        self.sampler = sampler
        self.period = Int64((1_000_000 / plan.rate).rounded())
        report = LoadReport(config: config)
        var rows = 0
        for canvas in 0..<plan.canvases {
            for index in 0..<plan.clients {
                var client = Client(canvas: canvas, index: index, rng: plan.generator(canvas: canvas, client: index))
                if index < plan.draggers { client.shapes = plan.shapes(of: index) }
                if client.isDragger || index == 0 {
                    client.logRow = rows
                    rows += 1
                }
                clients.append(client)
            }
        }
        sends = SendTable(rows: rows)
        lastSkimmed = Array(repeating: SkimmedFrame(), count: plan.canvases)
        lastParsed = Array(repeating: [], count: plan.canvases)
        skimTags.reserveCapacity(256)
        skimEnds.reserveCapacity(16)
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
        // The loop's first timerFired starts the run.
        try transport.start(name: "snapboard-load", delegate: self)
        finished.wait()
    }

    /// Stops the loop and closes every connection.
    func stop() {
        transport.stop()
        transport.wait()
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
        case .seeding: seedDue(now)
        case .running, .draining:
            sendDue(now)
            if phase == .running, now >= stormStart { connectStorm(now) }
        case .done: return
        }
        if now >= nextProgress {
            progress(now)
            nextProgress += 1_000_000
        }
        // CPU samples are timed when they are read: a late timer may have spent long sending since `now`.
        if ownCPUAtStart == nil, now >= measureStart {
            let at = monotonicMicros()
            ownCPUAtStart = (ownCPUSeconds(), at)
            if let sampler, let cpu = sampler.cpuSeconds() { cpuAtStart = (cpu, at) }
        }
        // The window closes once every op due in it has gone out, so that none is sent as a draining end.
        if phase == .running, now >= measureEnd, (heap.min?.time ?? .max) >= measureEnd {
            let at = monotonicMicros()
            if let sampler, let cpu = sampler.cpuSeconds() { cpuAtEnd = (cpu, at) }
            if let start = ownCPUAtStart, at > start.at {
                report.loadCpuPercent = (ownCPUSeconds() - start.seconds) / (Double(at - start.at) / 1_000_000) * 100
            }
            phase = .draining
            drainDeadline = now + 30_000_000
        }
        if phase == .draining, isDrained || now >= drainDeadline { finish(now) }
        guard phase != .done else { return }
        var next = nextProgress
        if phase == .connecting || phase == .seeding { next = min(next, now + 5_000) }
        if phase == .running || phase == .draining, let due = heap.min { next = min(next, due.time) }
        if phase == .running { next = min(next, now < measureStart ? measureStart : measureEnd) }
        if phase == .running, stormConnects < clients.count - planned { next = min(next, max(stormStart, now + 5_000)) }
        // Woken on a grid of `sendGrid` µs, the tool sends every op due since the last wake in one go: at
        // most that late, with a wake per grid step rather than one per op.
        let woken = (next + Self.sendGrid - 1) / Self.sendGrid * Self.sendGrid
        transport.schedule(after: Int(max(1, woken - now)))
    }

    /// The timer's grid, in microseconds: how late an op may go out so that ops due close together share
    /// a wake of the tool.
    static let sendGrid: Int64 = 250

    var isDrained: Bool {
        heap.isEmpty && !clients.contains { !$0.awaiting.isEmpty }
    }
}
