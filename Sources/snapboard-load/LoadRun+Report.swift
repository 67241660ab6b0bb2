import Dispatch
import Foundation
import HeapModule
import Histogram
import SnapboardClient
import SnapboardCore
import SnapboardLoad
import SnapboardProtocol
import SnapboardLWSClient

/// What the run reports: the replicas compared with the server, a progress line each second, and the final figures.
extension LoadRun {
    /// Compares every replica of `canvas` with the server's canvas; returns how many replicas differ,
    /// or nil when some replica is still behind the server's seq.
    func compare(canvas: Int, serverSeq: Int, shapes: [ShapeID: Shape], final: Bool) -> Int? {
        let group = DispatchGroup()
        nonisolated(unsafe) var result: Int?
        group.enter()
        transport.handOver { [self] in
            defer { group.leave() }
            let range = canvas * plan.clients..<(canvas + 1) * plan.clients
            for i in range { applyUnapplied(i) }
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

    func finish(_ now: Int64) {
        phase = .done
        let end = min(now, measureEnd)
        report.seconds = measureStart == .max ? 0 : Double(max(0, end - measureStart)) / 1_000_000
        report.ackLatency = LatencySummary(ack)
        report.peerLatency = LatencySummary(peer)
        report.sendLag = LatencySummary(sendLag)
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
