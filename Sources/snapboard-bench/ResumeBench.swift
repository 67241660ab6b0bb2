import ArgumentParser
import Foundation
import SnapboardCore
import SnapboardProtocol
import SnapboardRoom

/// What a canvas costs the service thread when it loads with a full resume window behind its checkpoint
/// (after a shutdown or an unload), and what the first client resuming through the whole window costs.
struct ResumeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Times loading a room whose resume window lies before its checkpoint, and the first resume through it.")

    @Option(help: "Shapes snapped before the moves.")
    var shapes = 2_000

    @Option(help: "Commits in all (snaps, then one-shot moves); the window holds the last 10,000.")
    var commits = 10_000

    @Option(help: "Times each figure is measured; the best is printed.")
    var repeats = 5

    func run() throws {
        var grid = CanvasConfig()
        grid.snapping.grid = false
        let room = Room(canvas: try Canvas(id: "bench", config: grid), now: 0)
        var entries: [JournalEntry] = []
        room.journal = { entries.append($0) }
        room.join(session: 1, address: try Self.address("client=c"), outbox: Outbox(), now: 0)
        for i in 0..<commits {
            let op: CanvasOp = i < shapes
                ? .snap(at: Point(x: Double(i % 1000), y: Double(i / 10 % 700)), shapeID: "s\(i)", spec: ShapeSpec())
                : .move("s\(i % shapes)", phase: nil, translation: Point(x: 3, y: 1))
            room.receive(.op(id: "o\(i)", op), from: 1, now: Double(i))
        }
        room.checkpoint()
        guard case .checkpoint(let snapshot, _)? = entries.last else { throw ValidationError("no checkpoint") }
        let history = entries.compactMap { if case .commit(let r) = $0 { r } else { nil } }
        let resumer = try Self.address("since=0")
        var load = Double.infinity, resume = Double.infinity
        for _ in 0..<repeats {
            let t0 = ContinuousClock.now
            let loaded = Room(canvas: try Canvas(snapshot: snapshot), history: history, now: 0)
            let t1 = ContinuousClock.now
            loaded.join(session: 2, address: resumer, outbox: Outbox(), now: 0)
            let t2 = ContinuousClock.now
            load = min(load, Self.milliseconds(t1 - t0))
            resume = min(resume, Self.milliseconds(t2 - t1))
        }
        print(String(format: "room load with %d commits behind its checkpoint: %.1f ms; first resume from since=0: %.1f ms",
                     history.count, load, resume))
    }

    static func address(_ query: String) throws -> CanvasAddress {
        guard case .canvas(let address) = CanvasAddress.route(path: CanvasAddress.prefix + "bench", query: query) else {
            throw ValidationError("bad address")
        }
        return address
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}
