import Foundation
import Histogram
import Testing

@testable import SnapboardCore
@testable import SnapboardLoad
@testable import SnapboardProtocol

@Suite("Load tool: plans, gestures, op tags and convergence")
struct LoadTests {
    @Test("Op tags read back the client and counter they were made from; other ids are not tags",
          arguments: [(0, 0), (3, 17), (199, 123_456_789)])
    func opTags(client: Int, counter: Int) {
        let tag = OpTag(client: client, counter: counter)
        #expect(OpTag(tag.text) == tag)
    }

    @Test("Ids the load tool did not send are not taken for its own", arguments: ["", "a1", "3.", ".4", "3.4.5", "3-4", "1234567890123.1"])
    func foreignIDs(id: String) {
        #expect(OpTag(id) == nil)
    }

    @Test("The send log finds recent ops and forgets those the ring has overwritten")
    func sendLog() {
        var log = SendLog(capacity: 8)
        for n in 0..<20 { log.record(counter: n, at: Int64(n * 100)) }
        #expect(log.sentTime(counter: 19) == 1_900)
        #expect(log.sentTime(counter: 12) == 1_200)
        #expect(log.sentTime(counter: 11) == nil)
        #expect(log.sentTime(counter: 3) == nil)
    }

    @Test("Draggers own disjoint shapes when there are enough, and share them when there are not")
    func shapeShares() {
        let plan = LoadPlan(canvases: 1, clients: 10, draggers: 4, rate: 60, shapes: 10, seed: 7)
        let shares = (0..<4).map(plan.shapes(of:))
        #expect(Set(shares.flatMap { $0 }).count == 10)
        #expect(shares.map(\.count).reduce(0, +) == 10)
        let crowded = LoadPlan(canvases: 1, clients: 10, draggers: 4, rate: 60, shapes: 2, seed: 7)
        #expect(crowded.shapes(of: 3) == ["L0", "L1"])
    }

    @Test("Seeding is a clear, then one valid snap per shape that the canvas accepts")
    func seeding() throws {
        let plan = LoadPlan(canvases: 2, clients: 3, draggers: 3, rate: 60, shapes: 12, seed: 9)
        let ops = plan.seedOps(canvas: 1, width: 1024, height: 768)
        #expect(ops.count == 13)
        #expect(ops == plan.seedOps(canvas: 1, width: 1024, height: 768))
        var canvas = try Canvas(id: "c")
        for op in ops {
            guard case .op(let id, let operation) = try ClientMessage.decode(op) else { Issue.record("not an op"); return }
            _ = try canvas.apply(operation, by: Participant(id: "p"))
            #expect(OpTag(id)?.client == 0)
        }
        #expect(canvas.liveSnapshot.shapes.count == 12)
    }

    @Test("A gesture's ops are begin, updates, end; move ends on its planned translation with the identity at begin")
    func gestureMessages() throws {
        var rng = SeededGenerator(seed: "g")
        let shape = Shape(id: "L0", kind: .roundedRect, center: Point(x: 500, y: 400), size: Size(width: 96, height: 64),
                          fill: .seedDefault(hue: 0.3), z: 1)
        let other = Shape(id: "L1", kind: .oval, center: Point(x: 200, y: 200), size: Size(width: 80, height: 56),
                          fill: .seedDefault(hue: 0.6), z: 2)
        var kinds: Set<GesturePlan.Kind> = []
        for _ in 0..<200 {
            let g = GesturePlan.plan(shape, others: [other], width: 1024, height: 768, rate: 60, using: &rng)
            kinds.insert(g.kind)
            #expect(g.steps >= 3)
            let decoded = try (0..<g.steps).map { step in try ClientMessage.decode(g.message(step: step, id: "0.\(step)")) }
            let phases = decoded.map { message -> GesturePhase? in
                guard case .op(_, let op) = message else { return nil }
                switch op {
                case .move(_, let phase, _, _), .scale(_, let phase, _, _, _), .rotate(_, let phase, _): return phase
                default: return nil
                }
            }
            #expect(phases.first == .begin && phases.last == .end)
            #expect(phases.dropFirst().dropLast().allSatisfy { $0 == .update })
            if g.kind == .move, case .op(_, .move(_, _, let first, _))? = decoded.first, case .op(_, .move(_, _, let last, _))? = decoded.last {
                #expect(first == Point(x: 0, y: 0))
                #expect(abs(last.x - g.dx) < 0.01 && abs(last.y - g.dy) < 0.01)
                let end = Point(x: shape.center.x + g.dx, y: shape.center.y + g.dy)
                #expect((0...1024).contains(end.x) && (0...768).contains(end.y))
            }
        }
        #expect(kinds == [.move, .scale, .rotate])
    }

    @Test("--gesture-steps and --moves-only: every gesture a move of exactly that many ops")
    func fixedMoves() {
        var rng = SeededGenerator(seed: "fixed")
        let shape = Shape(id: "L0", kind: .dot, center: Point(x: 500, y: 400), size: Size(width: 24, height: 24),
                          fill: .seedDefault(hue: 0.3), z: 1)
        for _ in 0..<100 {
            let g = GesturePlan.plan(shape, others: [], width: 4096, height: 4096, rate: 60, steps: 120, movesOnly: true, using: &rng)
            #expect(g.kind == .move && g.steps == 120)
        }
    }

    @Test("An early end stops the gesture where it is, not at its target")
    func earlyEnd() throws {
        var g = GesturePlan(kind: .rotate, shape: "L0", steps: 11)
        g.radians = 1
        guard case .op(_, .rotate(_, let phase, let radians)) = try ClientMessage.decode(g.message(step: 5, id: "0.1", ending: true)) else {
            Issue.record("not a rotate"); return
        }
        #expect(phase == .end && abs(radians - 0.5) < 1e-9)
    }

    @Test("Convergence finds missing, extra and differing shapes and a seq behind, and nothing when equal")
    func convergence() throws {
        let a = Shape(id: "a", kind: .dot, center: Point(x: 1, y: 2), size: Size(width: 24, height: 24), fill: .seedDefault(hue: 0), z: 1)
        var moved = a
        moved.center.x = 5
        let b = Shape(id: "b", kind: .oval, center: Point(x: 9, y: 9), size: Size(width: 30, height: 20), fill: .seedDefault(hue: 0.5), z: 2)
        #expect(Convergence.differences(replica: ["a": a, "b": b], replicaSeq: 4, server: ["a": a, "b": b], serverSeq: 4).isEmpty)
        #expect(Convergence.differences(replica: ["a": a], replicaSeq: 4, server: ["a": a], serverSeq: 5) == ["seq 4, server 5"])
        #expect(Convergence.differences(replica: ["a": a], replicaSeq: 4, server: ["a": a, "b": b], serverSeq: 4) == ["shape b missing"])
        #expect(Convergence.differences(replica: ["a": a, "b": b], replicaSeq: 4, server: ["a": a], serverSeq: 4) == ["shape b is not on the server"])
        #expect(Convergence.differences(replica: ["a": moved], replicaSeq: 4, server: ["a": a], serverSeq: 4).count == 1)
    }

    @Test("A GET body becomes the server's seq and shapes; a body that is not a canvas is refused")
    func snapshotBody() {
        let body = #"{"canvas":"c","seq":7,"shapes":[{"id":"a","kind":"dot","x":1,"y":2,"w":24,"h":24,"scale":1,"rotation":0,"fill":{"h":0,"s":0.8,"b":1,"a":0.8},"hatch":"none","z":1}],"sessions":2}"#
        let snapshot = Convergence.snapshot(fromBody: Array(body.utf8))
        #expect(snapshot?.seq == 7 && snapshot?.shapes["a"]?.center == Point(x: 1, y: 2))
        #expect(Convergence.snapshot(fromBody: Array(#"{"seq":1}"#.utf8)) == nil)
        #expect(Convergence.snapshot(fromBody: Array("<html>".utf8)) == nil)
    }

    @Test("Latency summaries and CDF points come from the histogram, in milliseconds")
    func summaries() {
        var h = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
        for v in 1...1000 { h.record(UInt64(v * 10)) }
        let s = LatencySummary(h)
        #expect(s.count == 1000)
        #expect(abs(s.p50 - 5.0) < 0.01 && abs(s.p99 - 9.9) < 0.01 && abs(s.max - 10.0) < 0.01)
        let cdf = cdfPoints(h)
        #expect(cdf.last?[1] == 100 && cdf.map { $0[0] } == cdf.map { $0[0] }.sorted())
    }

    @Test("The skim finds each message of a frame, its type, live flag and own op tags, and where it lies")
    func skim() throws {
        let batch = #"[{"type":"delta","seq":3,"by":1,"ops":["2.14","a1","0.9"],"shapes":[{"id":"x","fill":{"h":0.5}}],"events":[{"type":"guide"}],"live":true} , {"type":"ack","id":"2.15","seq":4}]"#
        let messages = try #require(FrameSkim.messages(Array(batch.utf8)))
        #expect(messages.map(\.type) == ["delta", "ack"])
        #expect(messages[0].live && !messages[1].live)
        #expect(messages[0].ops == [OpTag(client: 2, counter: 14), OpTag(client: 0, counter: 9)])
        let second = Array(batch.utf8)[messages[1].range]
        #expect(try JSONValue.parse(second)["id"] == .string("2.15"))
        let single = #"{"type":"delta","ops":[],"live":false,"note":"a \"quoted\" ] }"}"#
        let one = try #require(FrameSkim.messages(Array(single.utf8)))
        #expect(one.count == 1 && one[0].type == "delta" && !one[0].live && one[0].ops.isEmpty)
    }

    @Test("The live skim reads a frame of live deltas without allocating, and leaves anything else to the full path")
    func liveSkim() {
        var tags: [OpTag] = [], ends: [Int] = []
        func skim(_ text: String) -> FrameSkim.Live {
            Array(text.utf8).withUnsafeBytes { FrameSkim.live($0, tags: &tags, ends: &ends) }
        }
        let live = #"{"type":"delta","seq":7,"by":2,"ops":["2.14","u9","3.1"],"placed":[["s1",612,500,24,24,1.5,0.26,3]],"events":[{"type":"guide","axis":"x","at":1,"from":0,"to":5,"target":"s\"]2"}],"live":true}"#
        #expect(skim(live) == .handled)
        #expect(tags == [OpTag(client: 2, counter: 14), OpTag(client: 3, counter: 1)] && ends == [2])
        #expect(skim("[" + live + #",{"type":"presence","joined":{"id":1}},"# + live + "]") == .handled)
        #expect(tags.count == 4 && ends == [2, 4])
        #expect(skim("[ ]") == .handled && tags.isEmpty && ends.isEmpty)
        #expect(skim(#"{"type":"delta","ops":["1.2"],"live":false}"#) == .other)
        #expect(skim("[" + live + #",{"type":"ack","id":"2.15","seq":4}]"#) == .other)
        #expect(skim(#"{"type":"delta","ops":["1.2"],"placed":[["a",1}],"live":true}"#) == .malformed)
        #expect(skim(#"{"type":"delta","placed":[["a\"],"live":true}"#) == .malformed)
        #expect(skim(live + " x") == .malformed)
    }

    @Test("The send path writes the very bytes of the message a gesture plan encodes, for drags and for content", arguments: [0, 1, 2, 3, 4, 5])
    func fastOps(seed: Int) throws {
        var rng = SeededGenerator(seed: "fast-ops-\(seed)")
        let shape = Shape(id: "L\(seed)", kind: .roundedRect, center: Point(x: 400, y: 300), size: Size(width: 96, height: 64),
                          fill: .seedDefault(hue: 0.3), z: 1)
        let other = Shape(id: "L9", kind: .oval, center: Point(x: 700, y: 500), size: Size(width: 80, height: 56),
                          fill: .seedDefault(hue: 0.6), z: 2)
        var bytes: [UInt8] = []
        for _ in 0..<20 {
            let g = GesturePlan.plan(shape, others: [other], width: 4096, height: 4096, rate: 60, steps: 7, using: &rng)
            for step in 0..<g.steps {
                for ending in [false, true] {
                    let tag = OpTag(client: seed, counter: 1000 + step)
                    g.write(step: step, id: tag, ending: ending, into: &bytes)
                    #expect(String(decoding: bytes, as: UTF8.self) == String(decoding: g.message(step: step, id: tag.text, ending: ending), as: UTF8.self))
                }
            }
        }
        // The content workload's gestures likewise.
        var plan = LoadPlan(canvases: 1, clients: 2, draggers: 2, rate: 60, shapes: 44, seed: UInt64(seed))
        plan.workload = .content
        plan.gestureSteps = 6
        let canvas = try Self.contentCanvas(plan)
        let shapes = Dictionary(uniqueKeysWithValues: canvas.liveSnapshot.shapes.map { ($0.id, $0) })
        var kinds: Set<GesturePlan.Kind> = []
        for n in 0..<12 {
            let g = try #require(plan.contentGesture(n, dragger: n % 2, on: shapes, width: 1024, height: 768, using: &rng))
            kinds.insert(g.kind)
            for step in 0..<g.steps {
                for ending in [false, true] {
                    let tag = OpTag(client: n % 2, counter: 77 + step)
                    g.write(step: step, id: tag, ending: ending, into: &bytes)
                    #expect(String(decoding: bytes, as: UTF8.self) == String(decoding: g.message(step: step, id: tag.text, ending: ending), as: UTF8.self))
                }
            }
        }
        #expect(kinds == [.text, .move, .endpoint])
        for (value, places, text) in [(-0.001, 2, "0"), (-0.5, 2, "-0.5"), (12.3456, 2, "12.35"), (1.00004, 4, "1"), (0.0502, 4, "0.0502"), (-3, 2, "-3")] {
            var out: [UInt8] = []
            GesturePlan.field(",", value, places: places, into: &out)
            #expect(String(decoding: out, as: UTF8.self) == "," + text)
        }
    }

    /// A content plan's canvas `0`, seeded through `Canvas.apply` as the server would.
    static func contentCanvas(_ plan: LoadPlan) throws -> Canvas {
        var canvas = try Canvas(id: "c")
        for op in plan.seedOps(canvas: 0, width: 1024, height: 768) {
            guard case .op(_, let operation) = try ClientMessage.decode(op) else { throw ProtocolError(.badMessage, "not an op") }
            _ = try canvas.apply(operation, by: Participant(id: "seed"))
        }
        return canvas
    }

    @Test("The content workload seeds an arrow bound centre to centre between shapes 2k and 2k + 1, which the canvas accepts")
    func contentSeeding() throws {
        var plan = LoadPlan(canvases: 1, clients: 4, draggers: 2, rate: 60, shapes: 40, seed: 3)
        plan.workload = .content
        #expect(plan.connectors == 20 && plan.seedOps(canvas: 0, width: 1024, height: 768).count == 1 + 40 + 20)
        let canvas = try Self.contentCanvas(plan)
        #expect(canvas.liveSnapshot.shapes.count == 60)
        for k in 0..<20 {
            let arrow = try #require(canvas.shape(LoadPlan.connectorID(k)))
            #expect(arrow.kind.isConnector)
            #expect(arrow.from == Binding(shape: LoadPlan.shapeID(2 * k), anchor: .center))
            #expect(arrow.to == Binding(shape: LoadPlan.shapeID(2 * k + 1), anchor: .center))
        }
        #expect(Set(plan.connectors(of: 0) + plan.connectors(of: 1)).count == 20 && plan.connectors(of: 1).count == 10)
        #expect(plan.selection(of: 1).count == 20 && plan.selection(of: 1).allSatisfy(plan.shapes(of: 1).contains))
        var drags = plan
        drags.workload = .drags
        #expect(drags.connectors == 0 && drags.seedOps(canvas: 0, width: 1024, height: 768).count == 41)
    }

    @Test("A content dragger types a growing text, moves its 20 shapes as one and drags an arrow's end, in turn, and the canvas takes every op")
    func contentGestures() throws {
        var plan = LoadPlan(canvases: 1, clients: 4, draggers: 2, rate: 60, shapes: 40, seed: 11)
        plan.workload = .content
        var canvas = try Self.contentCanvas(plan)
        var seen: [LoadPlan.ContentKind] = []
        for n in 1...12 {
            let dragger = n % 2
            var rng = plan.generator(canvas: 0, client: dragger)
            let shapes = Dictionary(uniqueKeysWithValues: canvas.liveSnapshot.shapes.map { ($0.id, $0) })
            let g = try #require(plan.contentGesture(n, dragger: dragger, on: shapes, width: 1024, height: 768, using: &rng))
            #expect(g.steps >= 3)
            var drafts: [String] = []
            for step in 0..<g.steps {
                guard case .op(_, let op) = try ClientMessage.decode(g.message(step: step, id: "\(dragger).\(step)")) else {
                    Issue.record("not an op"); return
                }
                #expect(op.phase == (step == 0 ? .begin : step == g.steps - 1 ? .end : .update))
                switch op {
                case .text(let id, let phase, let text):
                    #expect(plan.shapes(of: dragger).contains(id))
                    if phase == .begin { #expect(text == nil) } else { drafts.append(try #require(text)) }
                case .moveMany(let ids, _, _, _):
                    #expect(ids.count == 20 && Set(ids) == Set(plan.selection(of: dragger)))
                case .endpoint(let id, let end, _, _):
                    #expect(plan.connectors(of: dragger).contains(id) && end == .to)
                default:
                    Issue.record("unexpected op \(op)")
                }
                _ = try canvas.apply(op, by: Participant(id: "d\(dragger)"))
            }
            switch g.kind {
            case .text:
                seen.append(.text)
                // Each draft is the last one and a few more letters, only letters and spaces.
                for (a, b) in zip(drafts, drafts.dropFirst()) { #expect(b.hasPrefix(a) && (2...4).contains(b.count - a.count)) }
                #expect(drafts.joined().allSatisfy { $0 == " " || ("a"..."z").contains($0) })
                #expect(canvas.shape(g.shape)?.text == drafts.last)
            case .move: seen.append(.selection)
            case .endpoint: seen.append(.endpoint)
            default: Issue.record("unexpected kind \(g.kind)")
            }
        }
        #expect(Set(seen) == Set(LoadPlan.ContentKind.allCases))
    }

    @Test("A selection of fewer than 2 shapes falls back to a move of the one")
    func smallSelection() throws {
        var rng = SeededGenerator(seed: "one")
        let shape = Shape(id: "L0", kind: .dot, center: Point(x: 500, y: 400), size: Size(width: 24, height: 24),
                          fill: .seedDefault(hue: 0.3), z: 1)
        let g = try #require(GesturePlan.selectionMove([shape], others: [], width: 1024, height: 768, rate: 60, using: &rng))
        #expect(g.kind == .move && g.shapes.isEmpty && g.shape == "L0")
        #expect(GesturePlan.selectionMove([], others: [], width: 1024, height: 768, rate: 60, using: &rng) == nil)
    }

    @Test("A malformed frame is not skimmed", arguments: [
        "", "[", "{", #"{"type":"delta""#, #"{"type":"delta",}"#, #"[{"type":"ack"},]"#, #"{"type":"ack"} x"#, #"{"ops":["1.2"}"#,
    ])
    func skimRefuses(frame: String) {
        #expect(FrameSkim.messages(Array(frame.utf8)) == nil)
    }
}
