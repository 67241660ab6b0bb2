import ArgumentParser
import Foundation
import SnapboardLWS
import SnapboardLoad
import SnapboardLock

#if canImport(Glibc)
import Glibc
#endif

/// What a second service thread would cost per op: the hand-over that a sharded server (docs/operations.md,
/// "Using more than one core") makes for every op that arrives on a connection whose canvas another thread owns.
/// One thread sends `rate` messages a second, evenly spaced as ops arrive, to a libwebsockets service
/// thread through `LWSContext.perform` (a lock-protected queue and `lws_cancel_service()`, as the journal
/// hands its answers back); the process's CPU time over the window, less that of the same pacing with no
/// hand-over, divided by the messages, is the cost of one hand-over, both threads together.
struct HandoverBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handover",
        abstract: "Times handing ops from one thread to a libwebsockets service thread.")

    @Option(help: "Messages a second.")
    var rate = 12_000

    @Option(help: "Seconds to measure each case.")
    var duration = 5.0

    @Option(help: "Messages handed over together (1: each op on its own, as ops arrive; more: a tick's batch).")
    var batch = 1

    @Option(help: "Also write the figures to this JSON file.")
    var json: String?

    func run() throws {
        let context = LWSContext(role: .client, eventLoop: .libev)
        let received = Locked(0)
        let ready = DispatchSemaphore(value: 0)
        let service = Thread {
            do { try context.open() } catch { fatalError("\(error)") }
            // libev re-arms its timer only after an event: schedule one before run() (LWSContext.schedule).
            context.schedule(after: 1_000_000_000)
            ready.signal()
            context.run()
        }
        service.start()
        ready.wait()
        let baseline = paced(handOver: nil)
        let handed = paced { count in
            context.perform { received.withLock { $0 += count } }
        }
        context.stop()
        let messages = Double(handed.messages)
        let perMessage = (handed.cpu - baseline.cpu / Double(baseline.messages) * messages) / messages * 1e6
        let figures: [String: Double] = [
            "rate": Double(rate), "batch": Double(batch), "messages": messages, "received": Double(received.withLock { $0 }),
            "pacingCpuMicrosPerMessage": baseline.cpu / Double(baseline.messages) * 1e6,
            "handoverCpuMicrosPerMessage": perMessage, "cpuPercent": handed.cpu / handed.seconds * 100,
        ]
        print(String(format: "hand-over: %d messages a second in batches of %d to a libev service thread: %.2f µs of CPU per message, "
                     + "both threads (pacing alone %.2f µs); %.0f of %.0f arrived", rate, batch, perMessage,
                     figures["pacingCpuMicrosPerMessage"]!, figures["received"]!, messages))
        try writeFigures(figures, as: "handover", to: json)
    }

    /// Sends `rate` messages a second for `duration` seconds, a batch every `batch / rate` seconds, and
    /// returns the process's CPU seconds over that window.
    private func paced(handOver: ((Int) -> Void)?) -> (messages: Int, cpu: Double, seconds: Double) {
        let interval = Double(batch) / Double(rate)
        let cpu0 = ownCPUSeconds(), t0 = monotonicNow()
        var sent = 0, next = t0
        while next - t0 < duration {
            next += interval
            var wait = next - monotonicNow()
            while wait > 0 {
                var request = timespec(tv_sec: Int(wait), tv_nsec: Int((wait - wait.rounded(.down)) * 1e9))
                nanosleep(&request, nil)
                wait = next - monotonicNow()
            }
            handOver?(batch)
            sent += batch
        }
        return (sent, ownCPUSeconds() - cpu0, monotonicNow() - t0)
    }
}

/// The monotonic clock in seconds, from the load tool's microseconds.
private func monotonicNow() -> Double { Double(monotonicMicros()) / 1e6 }
