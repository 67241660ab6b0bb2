import Dispatch
import Foundation
import HeapModule
import Histogram
import SnapboardClient
import SnapboardCore
import SnapboardLoad
import SnapboardProtocol
import SnapboardLWSClient

/// Connecting: the ramp, the join storm's watchers, and what opening, failing and closing do to the run.
extension LoadRun {
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
        let path = "/v1/canvases/\(plan.canvasName(c.canvas))?client=\(plan.clientID(canvas: c.canvas, client: c.index))&name=c\(c.index)&revision=\(report.config.revision)"
            + (token.map { "&token=" + $0 } ?? "")
        clients[i].connectStart = monotonicMicros()
        clients[i].connection = transport.open(host: host, port: port, path: path, tag: i)
    }

    /// A storm watcher was welcomed (or gave up).
    func stormSettled(_ i: Int, welcomed: Bool, at now: Int64) {
        guard var storm = report.joinStorm else { return }
        if welcomed {
            storm.welcomed += 1
            storm.lastWelcomeSeconds = max(storm.lastWelcomeSeconds, Double(now - stormStart) / 1_000_000)
            storm.slowestWelcomeSeconds = max(storm.slowestWelcomeSeconds, Double(now - clients[i].connectStart) / 1_000_000)
        } else {
            storm.failed += 1
        }
        report.joinStorm = storm
    }

    func connectionOpened(_ connection: any LoadConnection) {
        report.connections.opened += 1
    }

    func connectionFailed(_ connection: any LoadConnection, _ why: String) {
        report.connections.failed += 1
        if report.connections.failed <= 3 { FileHandle.standardError.write(Data("connection failed: \(why)\n".utf8)) }
        clients[connection.tag].finished = true
        if clients[connection.tag].storm { return stormSettled(connection.tag, welcomed: false, at: monotonicMicros()) }
        settle()
    }

    func connectionClosed(_ connection: any LoadConnection, code: UInt16?) {
        guard phase != .done else { return }
        report.drops += 1
        report.connections.closeCodes[code.map(String.init) ?? "none", default: 0] += 1
        let i = connection.tag
        clients[i].finished = true
        if clients[i].welcomes == 0 {
            if clients[i].storm { stormSettled(i, welcomed: false, at: monotonicMicros()) } else { settle() }
        }
        clients[i].gesture = nil
        let unsent = clients[i].seeds.count - clients[i].seedsSent
        clients[i].seeds = []
        clients[i].seedsSent = 0
        if phase == .seeding, clients[i].index == 0, !clients[i].awaiting.isEmpty || unsent > 0 {
            // A seeder lost: its canvas runs with the shapes that made it, and the others need not wait.
            seedsAwaited -= clients[i].awaiting.count + unsent
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
            clients[i].seeds = ops
            clients[i].counter = ops.count
            seedsAwaited += ops.count
        }
        seedingStart = monotonicMicros()
        if seedsAwaited == 0 { startRunning() } else { seedDue(seedingStart) }
    }

    /// Sends each seeding client's ops at `LoadPlan.seedRate` (after a first `seedBurst`), within the
    /// server's default session rate, so that seeding a 10,000-shape canvas is not refused with `rate_limited`.
    func seedDue(_ now: Int64) {
        let allowed = LoadPlan.seedBurst + Int(Double(now - seedingStart) * LoadPlan.seedRate / 1_000_000)
        for i in clients.indices where clients[i].seedsSent < clients[i].seeds.count {
            guard let connection = clients[i].connection, connection.isOpen else { continue }
            while clients[i].seedsSent < min(allowed, clients[i].seeds.count) {
                let n = clients[i].seedsSent
                transport.write(clients[i].seeds[n], to: connection)
                clients[i].awaiting.insert(n)
                clients[i].seedsSent += 1
            }
            if clients[i].seedsSent == clients[i].seeds.count {
                clients[i].seeds = []
                clients[i].seedsSent = 0
            }
        }
    }
}
