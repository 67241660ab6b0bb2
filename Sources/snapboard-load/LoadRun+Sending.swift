import Dispatch
import Foundation
import HeapModule
import Histogram
import SnapboardClient
import SnapboardCore
import SnapboardLoad
import SnapboardProtocol
import SnapboardLWSClient

/// Sending: the draggers' open-loop schedule, one op per period, each gesture planned from the replica.
extension LoadRun {
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

    /// The ops due by `now`, at most `sendBatch` of them: a timer that fires late catches up in batches,
    /// with the sockets read between them, so that a starved tool still answers pings and drains what the
    /// server sends. Latency still counts from each op's intended time.
    func sendDue(_ now: Int64) {
        var sent = 0
        while sent < Self.sendBatch, let due = heap.min, due.time <= now {
            sent += 1
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
        gesture.write(step: clients[i].step, id: OpTag(client: clients[i].index, counter: counter), ending: ends, into: &sendBuffer)
        transport.write(sendBuffer, to: connection)
        if clients[i].logRow >= 0 { sends.record(row: clients[i].logRow, counter: counter, at: time) }
        if time >= measureStart, time < measureEnd {
            report.windowOps += 1
            sendLag.record(UInt64(max(0, monotonicMicros() - time)))
        }
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
        if plan.workload == .content {
            let c = clients[i]
            clients[i].gestures += 1
            return plan.contentGesture(c.gestures, dragger: c.index, on: c.replica.shapes, width: c.replica.width,
                                       height: c.replica.height, using: &clients[i].rng)
        }
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
}
