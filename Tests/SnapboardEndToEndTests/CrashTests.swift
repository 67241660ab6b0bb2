import Foundation
import SnapboardCore
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

/// One canvas's writer in the crash test: the ops it plans, which it has sent, which were acked.
private struct Writer {
    let canvas: String
    var rng: SeededGenerator
    /// Every op the writer made, in order: its id, its JSON fields, and the op as the engine sees it.
    var ops: [(id: String, fields: String, op: CanvasOp)] = []
    var acked: [String: Int] = [:]
    /// Ops acked `unchanged`: they changed nothing and took no seq (a move, pinch or twist by nothing, or a
    /// move into an edge the shape lies against, P14).
    var unchanged: Set<String> = []
    var rejected: Set<String> = []
    var replica = Replica()
    private var shapes: [String] = []

    init(canvas: String, seed: UInt64) {
        self.canvas = canvas
        rng = SeededGenerator(state: seed)
    }

    /// Plans the next op: snaps, one-shot drags, pinches and twists of its own shapes, and now and then a clear.
    mutating func plan() {
        let n = ops.count
        let id = "\(canvas)-\(n)"
        let roll = rng.nextUnit()
        if shapes.count < 3 || roll < 0.3 {
            let shape = "\(canvas)-s\(n)"
            let x = (rng.nextUnit() * 1000).rounded(), y = (rng.nextUnit() * 740).rounded()
            let kind = ShapeKind.names[Int(rng.next() % UInt64(ShapeKind.names.count))]
            shapes.append(shape)
            ops.append((id, #""op":"snap","x":\#(x),"y":\#(y),"shapeId":"\#(shape)","shape":{"kind":"\#(kind)"}"#,
                        .snap(at: Point(x: x, y: y), shapeID: shape, spec: ShapeSpec(kind: kind))))
        } else if roll < 0.34 {
            shapes.removeAll()
            ops.append((id, #""op":"clear""#, .clear))
        } else {
            let shape = shapes[Int(rng.next() % UInt64(shapes.count))]
            let a = (rng.nextUnit() * 120 - 60).rounded()
            switch rng.next() % 3 {
            case 0:
                ops.append((id, #""op":"move","shape":"\#(shape)","dx":\#(a),"dy":\#(-a / 2)"#, .move(shape, phase: nil, translation: Point(x: a, y: -a / 2))))
            case 1:
                let f = 1 + a / 200
                ops.append((id, #""op":"scale","shape":"\#(shape)","factor":\#(f)"#, .scale(shape, phase: nil, factor: f, anchor: nil)))
            default:
                let r = a / 50
                ops.append((id, #""op":"rotate","shape":"\#(shape)","radians":\#(r)"#, .rotate(shape, phase: nil, radians: r)))
            }
        }
    }

    var unanswered: [(id: String, fields: String, op: CanvasOp)] {
        ops.filter { acked[$0.id] == nil && !unchanged.contains($0.id) && !rejected.contains($0.id) }
    }

    mutating func take(_ messages: [JSONValue]) {
        for m in messages {
            replica.apply(m)
            if m["type"] == .string("ack"), m["unchanged"] == .bool(true), case .string(let id)? = m["id"] {
                unchanged.insert(id)
            } else if m["type"] == .string("ack"), case .string(let id)? = m["id"], case .number(let seq)? = m["seq"] {
                if let earlier = acked[id] { #expect(earlier == Int(seq), "op \(id) acked twice with different seqs") }
                acked[id] = Int(seq)
            }
            if m["type"] == .string("reject"), case .string(let id)? = m["id"] { rejected.insert(id) }
        }
    }
}

extension EndToEnd {
    @Suite("Durability: kill -9 at random moments", .serialized)
    struct CrashTests {
        @Test("Across 6 SIGKILLs no acked op is lost, none is applied twice, and resuming clients converge to GET")
        func killNine() throws {
            let seed = ProcessInfo.processInfo.environment["SNAPBOARD_CRASH_SEED"].flatMap { UInt64($0) }
                ?? UInt64(Date().timeIntervalSince1970 * 1000) & 0xFFFF_FFFF
            print("crash test seed \(seed)")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-crash-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let data = directory.appendingPathComponent("data.sqlite").path
            var rng = SeededGenerator(state: seed)
            var writers = ["crash-a", "crash-b", "crash-c"].enumerated().map { Writer(canvas: $1, seed: seed &+ UInt64($0)) }
            var watchers = writers.map { _ in Replica() }
            let kills = 6
            var resent = 0

            for round in 0...kills {
                let server = try ServerProcess(["--checkpoint-every", "40"], data: data)
                let clients = try writers.map { w in
                    try TestClient(server.url(w.canvas, "client=\(w.canvas)-writer" + (w.replica.seq >= 0 ? "&since=\(w.replica.seq)" : "")))
                }
                let watching = try writers.indices.map { i in
                    try TestClient(server.url(writers[i].canvas, watchers[i].seq >= 0 ? "since=\(watchers[i].seq)" : ""))
                }
                // Resend what was never answered once the welcome has come, as a client does (exactly once makes
                // this safe; a flood before the canvas loads is closed with 1008, P10), then carry on.
                for client in clients {
                    client.pump(timeout: 5) { c in c.closed != nil || c.received.contains { $0["type"] == .string("welcome") } }
                }
                for (i, client) in clients.enumerated() {
                    resent += writers[i].unanswered.count
                    for op in writers[i].unanswered { client.send(#"{"type":"op","id":"\#(op.id)",\#(op.fields)}"#) }
                }
                func sendNext() {
                    for (i, client) in clients.enumerated() {
                        writers[i].plan()
                        let op = writers[i].ops.last!
                        client.send(#"{"type":"op","id":"\#(op.id)",\#(op.fields)}"#)
                    }
                }
                if round < kills {
                    // Keep ops flowing until a random moment, so the kill catches some in flight.
                    let killAt = Date().addingTimeInterval(Double(20 + rng.next() % 280) / 1000)
                    while Date() < killAt {
                        sendNext()
                        usleep(500)
                    }
                    kill(server.process.processIdentifier, SIGKILL)
                    server.process.waitUntilExit()
                    for c in clients + watching { c.pump(timeout: 3) { $0.closed != nil } }
                } else {
                    for _ in 0..<40 { sendNext() }
                    for (i, c) in clients.enumerated() {
                        let expected = writers[i].ops.count
                        c.pump(timeout: 20) { client in
                            var w = writers[i]
                            w.take(client.received)
                            return w.acked.count + w.unchanged.count + w.rejected.count == expected
                        }
                    }
                    for (i, c) in watching.enumerated() {
                        let target = try JSONValue.parse(Array(httpGet(port: server.port, "/v1/canvases/\(writers[i].canvas)").body.utf8))["seq"]
                        c.pump(timeout: 10) { Replica($0.received).seq >= 0 && .number(Double(Replica($0.received).seq)) == target }
                    }
                }
                for (i, c) in clients.enumerated() { writers[i].take(c.received) }
                for (i, c) in watching.enumerated() { for m in c.received { watchers[i].apply(m) } }

                if round == kills {
                    print("crash test: \(writers.map(\.ops.count).reduce(0, +)) ops, \(writers.map(\.acked.count).reduce(0, +)) acked, "
                          + "\(writers.map(\.rejected.count).reduce(0, +)) rejected, \(resent) resent after kills, "
                          + "\(writers.map { w in w.acked.values.filter { $0 > 0 }.count }.reduce(0, +)) seqs")
                    #expect(resent > 0, "seed \(seed): no kill caught an op in flight")
                    for (i, w) in writers.enumerated() {
                        let body = try httpGet(port: server.port, "/v1/canvases/\(w.canvas)").body
                        let truth = try Replica.shapes(ofSnapshot: body)
                        let seq = try JSONValue.parse(Array(body.utf8))["seq"]
                        #expect(w.acked.count + w.unchanged.count + w.rejected.count == w.ops.count, "seed \(seed): \(w.canvas) has unanswered ops")
                        // Every committed op took exactly one seq: the acked seqs are 1...N and N is the canvas's seq.
                        #expect(Set(w.acked.values) == Set(1...max(w.acked.count, 1)) || w.acked.isEmpty, "seed \(seed): \(w.canvas) acked seqs have gaps or repeats")
                        #expect(seq == .number(Double(w.acked.count)), "seed \(seed): \(w.canvas) seq \(String(describing: seq)) vs \(w.acked.count) acked ops")
                        // Every acked op's effect is there: replaying them in seq order gives the server's canvas.
                        var model = try Canvas(id: w.canvas)
                        for op in w.ops.filter({ w.acked[$0.id] != nil }).sorted(by: { w.acked[$0.id]! < w.acked[$1.id]! }) {
                            _ = try? model.apply(op.op, by: Participant(id: "model"))
                        }
                        var modelShapes: [String: JSONValue] = [:]
                        for shape in model.shapes {
                            var writer = JSONWriter()
                            ServerMessage.writeShape(&writer, shape)
                            modelShapes[shape.id] = try JSONValue.parse(writer.bytes)
                        }
                        let sameAsModel = modelShapes == truth
                        #expect(sameAsModel, "seed \(seed): \(w.canvas) differs from the acked ops replayed")
                        let writerConverged = w.replica.shapes == truth, watcherConverged = watchers[i].shapes == truth
                        #expect(writerConverged, "seed \(seed): \(w.canvas)'s writer did not converge to GET")
                        #expect(watcherConverged, "seed \(seed): \(w.canvas)'s watcher did not converge to GET")
                    }
                }
            }
        }
    }
}
