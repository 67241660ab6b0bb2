import ArgumentParser
import Foundation
import SnapboardCore
import SnapboardProtocol
import SnapboardRoom

/// W6 on the service thread alone: many clients join a big canvas at once while others drag. What the
/// joins cost the room (the committed canvas serialised once, then a welcome per joiner), and the memory
/// their queued welcomes hold until they are written (their own head and tail each, the canvas's bytes
/// shared).
struct StormBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storm",
        abstract: "Times a join storm on a big canvas in one room, without sockets.")

    @Option(help: "Shapes on the canvas.")
    var shapes = 10_000

    @Option(help: "Clients joining at once.")
    var joiners = 200

    @Option(help: "Clients already there, each dragging a shape.")
    var draggers = 5

    @Option(help: "Also write the figures to this JSON file.")
    var json: String?

    func run() throws {
        var config = CanvasConfig()
        config.width = 4096
        config.height = 4096
        var canvas = try Canvas(id: "storm", config: config)
        var rng = SeededGenerator(seed: "storm")
        try seedShapes(shapes, on: &canvas) { _ in Point(x: rng.nextUnit() * 4096, y: rng.nextUnit() * 4096) }
        let s0 = ContinuousClock.now
        let serialised = ServerMessage.shapeArray(canvas.committedSnapshot.shapes)
        let serialiseMillis = seconds(ContinuousClock.now - s0) * 1000
        let room = Room(canvas: canvas, now: 0)
        var outboxes: [Outbox] = []
        for d in 0..<draggers {
            let outbox = Outbox()
            outboxes.append(outbox)
            room.join(session: d + 1, address: try ResumeBench.address("client=d\(d)"), outbox: outbox, now: 0)
            room.receive(.op(id: "b\(d)", .move("s\(d)", phase: .begin, translation: .zero)), from: d + 1, now: 0)
            room.receive(.op(id: "u\(d)", .move("s\(d)", phase: .update, translation: Point(x: 40, y: 7))), from: d + 1, now: 0)
        }
        let rssBefore = CanvasesBench.rssMB()
        let clock = ContinuousClock()
        let t0 = clock.now
        for j in 0..<joiners {
            let outbox = Outbox()
            outboxes.append(outbox)
            room.join(session: 1000 + j, address: try ResumeBench.address("client=j\(j)&revision=2"), outbox: outbox, now: 0)
        }
        let all = seconds(clock.now - t0) * 1000
        let rssAfter = CanvasesBench.rssMB()
        let figures: [String: Double] = [
            "shapes": Double(shapes), "joiners": Double(joiners), "serialiseMillis": serialiseMillis, "allJoinsMillis": all,
            "joinMeanMillis": all / Double(max(1, joiners)), "canvasJSONMB": Double(serialised.count) / 1_048_576,
            "rssGrowthMB": rssAfter - rssBefore,
        ]
        print(String(format: "W6 (service thread only): %d joiners on a canvas of %d shapes, %d dragging: all joins %.1f ms, %.2f ms each; "
                     + "serialising the canvas (%.2f MB of JSON) takes %.1f ms and happens once; the queued welcomes add %.0f MB of RSS "
                     + "(they share the canvas's bytes)",
                     joiners, shapes, draggers, all, figures["joinMeanMillis"]!, figures["canvasJSONMB"]!, serialiseMillis, figures["rssGrowthMB"]!))
        try writeFigures(figures, as: "W6", to: json)
    }
}
