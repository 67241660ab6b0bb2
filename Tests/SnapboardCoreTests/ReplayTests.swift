import PropertyBased
import Testing

@testable import SnapboardCore

/// A seeded stream of plausible and implausible operations from three participants.
struct RandomSession {
    var rng: SeededGenerator
    let participants = [Participant(id: "p1"), Participant(id: "p2", zoom: 2), Participant(id: "p3", zoom: 0.5)]

    init(seed: UInt64) { rng = SeededGenerator(state: seed) }

    mutating func next(on canvas: Canvas) -> (CanvasOp, Participant) {
        let who = participants[Int.random(in: 0..<3, using: &rng)]
        let ids = canvas.shapes.map(\.id)
        let id = ids.isEmpty || Int.random(in: 0..<20, using: &rng) == 0 ? "ghost" : ids.randomElement(using: &rng)!
        let phase: GesturePhase? = [nil, .begin, .update, .update, .update, .end].randomElement(using: &rng)!
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<25:
            var spec = ShapeSpec(kind: ShapeKind.names.randomElement(using: &rng)!)
            if Bool.random(using: &rng) { spec.width = Double.random(in: 10...200, using: &rng) }
            let tap = Point(x: Double.random(in: -20...1020, using: &rng), y: Double.random(in: -20...1020, using: &rng))
            return (.snap(at: tap, shapeID: nil, spec: spec), who)
        case 25..<65:
            let t = Point(x: Double.random(in: -300...300, using: &rng), y: Double.random(in: -300...300, using: &rng))
            return (.move(id, phase: phase, translation: t), who)
        case 65..<80:
            let anchor = Bool.random(using: &rng) ? nil : Point(x: Double.random(in: 0...1000, using: &rng), y: 500)
            return (.scale(id, phase: phase, factor: Double.random(in: 0.2...3, using: &rng), anchor: anchor), who)
        case 80..<98:
            return (.rotate(id, phase: phase, radians: Double.random(in: -7...7, using: &rng)), who)
        default:
            return (.clear, who)
        }
    }
}

@Suite("Determinism and replay")
struct ReplayTests {
    func config() -> CanvasConfig {
        var config = CanvasConfig()
        config.width = 1000
        config.height = 1000
        return config
    }

    @Test("Property: the same operations on the same canvas give the same outcomes and the same canvas")
    func replayIsDeterministic() async {
        await propertyCheck(count: 40, input: Gen.uint64()) { seed in
            var a = try Canvas(id: "det", config: config()), b = a
            var session = RandomSession(seed: seed)
            for _ in 0..<300 {
                let (op, who) = session.next(on: a)
                let ra = Result { () throws(Rejection) in try a.apply(op, by: who) }
                let rb = Result { () throws(Rejection) in try b.apply(op, by: who) }
                #expect(ra == rb, "seed \(seed)")
            }
            #expect(a.liveSnapshot == b.liveSnapshot, "seed \(seed)")
        }
    }

    @Test("Property: replaying the committed ops on an earlier snapshot gives the committed state exactly")
    func replayFromSnapshot() async {
        await propertyCheck(count: 40, input: Gen.uint64(), Gen.int(in: 0...299)) { seed, checkpointAt in
            var live = try Canvas(id: "replay", config: config())
            var session = RandomSession(seed: seed)
            var checkpoint = live.committedSnapshot
            var log: [CommittedOp] = []
            for step in 0..<300 {
                if step == checkpointAt {
                    checkpoint = live.committedSnapshot
                    log.removeAll()
                }
                let (op, who) = session.next(on: live)
                if let commit = try? live.apply(op, by: who).commit { log.append(commit) }
                if step % 37 == 0 {
                    // A participant disconnects mid-gesture now and then; its gestures commit too.
                    log += live.endGestures(ownedBy: "p2").compactMap(\.commit)
                }
            }
            var recovered = try Canvas(snapshot: checkpoint)
            for op in log { recovered.replay(op) }
            #expect(recovered.committedSnapshot == live.committedSnapshot, "seed \(seed) checkpoint \(checkpointAt)")
            #expect(recovered.seq == checkpoint.seq + log.count)
        }
    }

    @Test("Once every gesture has ended, the committed state is the live state")
    func committedEqualsLiveWhenIdle() throws {
        var live = try Canvas(id: "idle", config: config())
        var session = RandomSession(seed: 42)
        for _ in 0..<500 {
            let (op, who) = session.next(on: live)
            _ = try? live.apply(op, by: who)
        }
        for who in session.participants { _ = live.endGestures(ownedBy: who.id) }
        #expect(live.leases.isEmpty)
        #expect(live.committedSnapshot == live.liveSnapshot)
    }
}
