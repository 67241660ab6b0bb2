import Testing

@testable import SnapboardCore
@testable import SnapboardProtocol
@testable import SnapboardRoom

/// [P17] Every answer queued for a session counts toward its send budget, and the answers a client can ask
/// for without limit (pongs, refusals) are rate-limited like errors.
@Suite("Room: answers count toward backpressure, and are rate-limited like errors")
struct AnswerBudgetTests {
    func ping(_ t: String) -> ClientMessage { .ping(t: .string(t)) }

    @Test("[P12] Pings beyond the budget are still answered, but each counts as an error: past the error budget the session is closed with 1008")
    func pingBudget() throws {
        let room = try makeRoom { $0.pingsPerSecond = 10; $0.maxErrors = 20 }
        let peer = Peer(id: 1)
        room.join(peer)
        // 10 within the budget, then 20 errors: still open.
        for i in 0..<30 { room.receive(ping("\(i)"), from: 1, now: 0) }
        #expect(peer.outbox.close == nil)
        try peer.drain()
        #expect(peer.of("pong").count == 30)
        // The 21st error closes it, and nothing it sends afterwards is answered.
        room.receive(ping("30"), from: 1, now: 0)
        #expect(peer.outbox.close?.code == CloseCode.policyViolation)
        room.receive(ping("31"), from: 1, now: 0)
        try peer.drain()
        #expect(peer.of("pong").count == 31)
    }

    @Test("[P12] Pings within the budget never count: ten a second for a minute is fine")
    func pingsWithinBudget() throws {
        let room = try makeRoom { $0.pingsPerSecond = 10; $0.maxErrors = 20 }
        let peer = Peer(id: 1)
        room.join(peer)
        for i in 0..<600 { room.receive(ping("\(i)"), from: 1, now: Double(i) / 10) }
        #expect(peer.outbox.close == nil)
    }

    @Test("[P7] A viewer's refused ops beyond the budget count as errors: a flood of them is closed with 1008")
    func rejectBudget() throws {
        let room = try makeRoom { $0.rejectsPerSecond = 100; $0.maxErrors = 20 }
        let viewer = Peer(id: 1)
        room.join(viewer, canEdit: false)
        for i in 0..<120 { room.receive(op("v\(i)", "snap", #""x":1,"y":1"#), from: 1, now: 0) }
        #expect(viewer.outbox.close == nil)
        room.receive(op("v120", "snap", #""x":1,"y":1"#), from: 1, now: 0)
        #expect(viewer.outbox.close?.code == CloseCode.policyViolation)
        try viewer.drain()
        #expect(viewer.of("reject").count == 121 && viewer.of("reject").allSatisfy { $0["code"] == .string("forbidden") })
    }

    @Test("[P15] Resent ops that were already acked, however many at once, each get their original ack and never close the session: a client resends its whole pending window after a reconnect")
    func duplicateBudget() throws {
        let room = try makeRoom { $0.rejectsPerSecond = 5; $0.maxErrors = 2 }
        let peer = Peer(id: 1)
        room.join(peer, client: "c")
        room.receive(op("o", "snap", #""x":10,"y":10"#), from: 1, now: 0)
        for _ in 0..<8 { room.receive(op("o", "snap", #""x":10,"y":10"#), from: 1, now: 0) }
        #expect(peer.outbox.close == nil)
    }

    @Test("[P17] Answers count toward the send budget: a client that does not read them is closed with 4000 once stuck, and its queue goes")
    func answersCount() throws {
        let room = try makeRoom { $0.maxQueuedBytes = 10_000; $0.pingsPerSecond = 1_000 }
        let peer = Peer(id: 1)
        room.join(peer, now: 0)
        let pad = String(repeating: "x", count: 1_000)
        for i in 0..<20 { room.receive(ping("\(i)\(pad)"), from: 1, now: 0.1) }
        // Over the bound, but the client took its welcome a moment ago: not stuck yet.
        #expect(peer.outbox.queuedBytes > 10_000 && peer.outbox.answerBytes > 10_000)
        #expect(peer.outbox.close == nil)
        // Stuck: a resync would keep these answers, so it is closed at once.
        room.receive(ping("late"), from: 1, now: 1)
        #expect(peer.outbox.close?.code == CloseCode.resume)
        #expect(peer.outbox.queuedBytes == 0)
        #expect(room.metrics.slowCloses == 1 && room.metrics.resyncs == 0)
    }

    @Test("[P17] Nothing more is queued once a close is asked for")
    func nothingAfterClose() throws {
        let room = try makeRoom()
        let a = Peer(id: 1), b = Peer(id: 2)
        room.join(a); room.join(b)
        try a.drain()
        a.outbox.requestClose(code: CloseCode.policyViolation, reason: "test")
        room.receive(op("b1", "snap", #""x":10,"y":10"#), from: 2, now: 0)
        room.receive(ping("x"), from: 1, now: 0)
        #expect(a.outbox.queuedBytes == 0)
        #expect(a.outbox.take(now: 0) == nil && a.outbox.close?.code == CloseCode.policyViolation)
    }

    @Test("[P17] A welcome's own head and tail count toward the budget, the canvas's shapes it shares do not")
    func welcomeCounts() throws {
        let room = try makeRoom()
        let writer = Peer(id: 1)
        room.join(writer)
        for i in 0..<200 { room.receive(op("s\(i)", "snap", #""x":\#(i * 4),"y":\#(i * 3)"#), from: 1, now: Double(i) / 100) }
        let joiner = Peer(id: 2)
        room.join(joiner, now: 2)
        let queued = joiner.outbox.queuedBytes
        let welcome = joiner.outbox.take(now: 2)!.bytes
        #expect(queued > 0 && queued < welcome.count / 4, "\(queued) of the welcome's \(welcome.count) bytes count")
        #expect(joiner.outbox.queuedBytes == 0)
    }

    /// A room whose session 2 made `count` shapes `s0`, `s1`, … (spread out, so that none overlaps), with
    /// session 1 joined beside it, and both buckets full again by `now` 10.
    func roomWithShapes(_ count: Int) throws -> (Room, Peer) {
        var canvasConfig = CanvasConfig()
        canvasConfig.width = 4096
        canvasConfig.height = 4096
        canvasConfig.snapping.grid = false
        let room = Room(canvas: try Canvas(id: "room", config: canvasConfig), config: RoomConfig(), now: 0)
        let mover = Peer(id: 1), maker = Peer(id: 2)
        room.join(mover); room.join(maker)
        for i in 0..<count {
            room.receive(op("m\(i)", "snap", #""x":\#(i % 40 * 100 + 50),"y":\#(i / 40 * 100 + 50),"shapeId":"s\#(i)""#), from: 2,
                         now: Double(i) / 1000)
        }
        #expect(room.canvas.count == count)
        try mover.drain()
        return (room, mover)
    }

    @Test("[P10] A selection gesture costs one op per shape it names: 1,000-shape updates are refused after the burst, and the end still commits")
    func selectionCost() throws {
        let (room, mover) = try roomWithShapes(1000)
        let ids = "\"shapes\":[" + (0..<1000).map { "\"s\($0)\"" }.joined(separator: ",") + "]"
        let start = try #require(room.canvas.shape("s0")).center.x
        room.receive(op("g0", "move", ids + #","phase":"begin""#), from: 1, now: 10)
        for i in 1...5 { room.receive(op("g\(i)", "move", ids + #","phase":"update","dx":\#(i * 10),"dy":0"#), from: 1, now: 10) }
        room.receive(op("g6", "move", ids + #","phase":"end","dx":60,"dy":0"#), from: 1, now: 10)
        try mover.drain()
        // The bucket holds 2,000: the begin and one update; the four other updates are refused; the end costs none.
        #expect(mover.of("reject").map { $0["id"] } == (2...5).map { .string("g\($0)") })
        #expect(mover.of("reject").map { $0["code"] } == Array(repeating: .string("rate_limited"), count: 4))
        #expect(room.canvas.leases.isEmpty)
        #expect(room.canvas.shape("s0")?.center.x == start + 60)
        #expect(mover.of("ack").map { $0["id"] } == [.string("g6")])
    }

    @Test("[P10] A 20-shape selection dragged at 60 Hz for two seconds stays within the default budget")
    func selectionWithinBudget() throws {
        let (room, mover) = try roomWithShapes(20)
        let ids = "\"shapes\":[" + (0..<20).map { "\"s\($0)\"" }.joined(separator: ",") + "]"
        room.receive(op("g0", "move", ids + #","phase":"begin""#), from: 1, now: 10)
        for i in 1...120 {
            room.receive(op("g\(i)", "move", ids + #","phase":"update","dx":\#(i),"dy":0"#), from: 1, now: 10 + Double(i) / 60)
        }
        room.receive(op("g121", "move", ids + #","phase":"end","dx":121,"dy":0"#), from: 1, now: 12.1)
        try mover.drain()
        #expect(mover.of("reject").isEmpty)
        #expect(mover.of("ack").map { $0["id"] } == [.string("g121")])
    }
}
