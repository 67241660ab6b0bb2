import ArgumentParser
import Foundation
import SnapboardCore
import SnapboardProtocol
import SnapboardRoom

/// W1 on the service thread alone: rooms of clients all dragging at 60 Hz, driven through everything the
/// server does for an op but the sockets: the frame decoded as the server decodes it, the room's receive,
/// a tick every 1/60 s of simulated time, and every outbox emptied as the transport would. Time is simulated,
/// so a run is the same work every time: under callgrind its instruction count per op compares two builds
/// exactly, which the socket workloads on a shared machine cannot.
struct DragBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drags",
        abstract: "Times W1's drags through the room and the wire codec, without sockets.")

    @Option(help: "Rooms (canvases).")
    var rooms = 20

    @Option(help: "Clients per room, each dragging a shape of its own.")
    var clients = 10

    @Option(help: "Simulated seconds of dragging.")
    var seconds = 10.0

    @Option(help: "Ops in a gesture: a begin, updates, an end.")
    var gestureSteps = 120

    @Option(help: "Also write the figures to this JSON file.")
    var json: String?

    /// The free function `seconds(_:)`, which the option of the same name hides here.
    private func elapsedSeconds(_ d: Duration) -> Double { snapboard_bench.seconds(d) }

    func run() throws {
        var config = CanvasConfig()
        config.width = 4096
        config.height = 4096
        var all: [(room: Room, outboxes: [Outbox])] = []
        for r in 0..<rooms {
            var canvas = try Canvas(id: "w1-\(r)", config: config)
            try seedShapes(clients, on: &canvas) { Point(x: 200 + Double($0 % 5) * 700, y: 300 + Double($0 / 5) * 900) }
            let room = Room(canvas: canvas, now: 0)
            var outboxes: [Outbox] = []
            for c in 0..<clients {
                let outbox = Outbox()
                outboxes.append(outbox)
                room.join(session: c + 1, address: try ResumeBench.address("client=c\(r).\(c)&revision=4"), outbox: outbox, now: 0)
            }
            for outbox in outboxes { while outbox.take(now: 0) != nil {} }
            all.append((room, outboxes))
        }
        let ticks = Int(self.seconds * 60)
        // Every client's frames written beforehand, so that the timing (and an instruction count) is the server's work.
        var frames: [[[UInt8]]] = []
        for t in 0..<ticks {
            var tick: [[UInt8]] = []
            for r in 0..<rooms {
                for c in 0..<clients {
                    // Each client starts its gestures at its own step, as W1's spread-out schedule does.
                    let step = (t + c * 13 + r * 7) % gestureSteps
                    let phase = step == 0 || t == 0 ? "begin" : step == gestureSteps - 1 ? "end" : "update"
                    let dx = Int(Double(step) * 3.7), dy = Int(sin(Double(step) / 9) * 40)
                    tick.append(Array(#"{"type":"op","id":"c\#(c).\#(t)","op":"move","shape":"s\#(c)","phase":"\#(phase)","dx":\#(dx),"dy":\#(dy)}"#.utf8))
                }
            }
            frames.append(tick)
        }
        let clock = ContinuousClock()
        let t0 = clock.now
        let (ops, framesOut, bytesOut) = try Self.drive(all, frames: frames, clients: clients)
        let elapsed = elapsedSeconds(clock.now - t0)
        let figures: [String: Double] = [
            "rooms": Double(rooms), "clients": Double(clients), "ops": Double(ops), "framesOut": Double(framesOut),
            "microsPerOp": elapsed * 1e6 / Double(ops), "framesPerOp": Double(framesOut) / Double(ops),
            "bytesOutPerOp": Double(bytesOut) / Double(ops),
        ]
        print(String(format: "W1 (service thread only, no sockets): %d rooms × %d clients dragging at 60 Hz for %.0f simulated s: "
                     + "%d ops in, %.2f µs each; %.2f frames and %.0f bytes out per op",
                     rooms, clients, self.seconds, ops, figures["microsPerOp"]!, figures["framesPerOp"]!, figures["bytesOutPerOp"]!))
        try writeFigures(figures, as: "W1-room", to: json)
    }

    /// The measured part, a function of its own so that callgrind can count it alone
    /// (`--toggle-collect='*DragBench.drive*'`): ops in, ticks, outboxes emptied. Returns ops, frames and bytes out.
    @inline(never)
    static func drive(_ all: [(room: Room, outboxes: [Outbox])], frames: [[[UInt8]]], clients: Int) throws -> (Int, Int, Int) {
        var ops = 0, framesOut = 0, bytesOut = 0
        for (t, tick) in frames.enumerated() {
            let now = Double(t) / 60
            for (r, (room, _)) in all.enumerated() {
                for c in 0..<clients {
                    room.receive(try ClientMessage.decode(tick[r * clients + c]), from: c + 1, now: now)
                    ops += 1
                }
            }
            for (room, outboxes) in all {
                room.tick(now: now)
                for outbox in outboxes {
                    while let message = outbox.take(now: now) {
                        framesOut += 1
                        bytesOut += message.frame?.count ?? 0
                    }
                }
            }
        }
        return (ops, framesOut, bytesOut)
    }
}
