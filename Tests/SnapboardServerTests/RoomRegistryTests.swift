import Logging
import Testing

@testable import SnapboardCore
@testable import SnapboardProtocol
@testable import SnapboardRoom
@testable import SnapboardServer
@testable import SnapboardStore

/// A journal that keeps what it is asked and answers only when the test says so.
final class FakeJournal: CanvasJournal {
    var entries: [JournalEntry] = []
    var loads: [(id: String, recovering: Bool, done: @Sendable (Result<StoredCanvas, any Error>) -> Void)] = []

    func append(_ entry: JournalEntry) { entries.append(entry) }

    func load(_ id: String, recovering: Bool, _ done: @escaping @Sendable (Result<StoredCanvas, any Error>) -> Void) {
        loads.append((id, recovering, done))
    }
}

/// What the registry posted for the service thread, delivered by the test.
final class Posted: @unchecked Sendable {
    var events: [StorageEvent] = []
}

struct DiskFull: Error {}

@Suite("RoomRegistry: loading once, recovery, unloading")
struct RoomRegistryTests {
    let journal = FakeJournal()
    let posted = Posted()
    let registry: RoomRegistry

    init() {
        let posted = self.posted
        registry = RoomRegistry(journal: journal, canvasDefaults: CanvasConfig(), roomConfig: RoomConfig(), metrics: RoomMetrics(),
                                logger: Logger(label: "test"), post: { posted.events.append($0) })
    }

    /// Runs the journal's pending loads with `result` and hands what they posted to the registry.
    func answerLoads(_ result: Result<StoredCanvas, any Error>, now: Double = 0) {
        let loads = journal.loads
        journal.loads.removeAll()
        for load in loads { load.done(result) }
        let events = posted.events
        posted.events.removeAll()
        for event in events { registry.handle(event, now: now) }
    }

    @Test("Three requests for a canvas being loaded make one load, and all three get the same room")
    func loadsOnce() {
        var got: [Room?] = []
        for _ in 0..<3 { registry.withRoom("a") { got.append($0) } }
        #expect(journal.loads.count == 1 && got.isEmpty)
        answerLoads(.success(StoredCanvas(snapshot: nil, log: [])))
        #expect(got.count == 3 && got.allSatisfy { $0 != nil && $0 === got[0] })
        registry.withRoom("a") { got.append($0) }
        #expect(journal.loads.isEmpty && got.count == 4)
    }

    @Test("A canvas that cannot be read gives nil to everyone waiting, and is not kept")
    func loadFailure() {
        var got: [Room?] = []
        registry.withRoom("a") { got.append($0) }
        answerLoads(.failure(DiskFull()))
        #expect(got.count == 1 && got[0] == nil && registry.rooms.isEmpty)
    }

    @Test("A failed write reloads the canvas (recovering) and rolls the room back to what is durable")
    func recovery() throws {
        registry.withRoom("a") { _ in }
        answerLoads(.success(StoredCanvas(snapshot: nil, log: [])))
        let room = try #require(registry.rooms["a"])
        let outbox = Outbox()
        room.join(session: 1, address: CanvasAddress(canvas: "a", zoom: 1), outbox: outbox, now: 0)
        room.receive(.op(id: "o1", .snap(at: Point(x: 100, y: 100), shapeID: nil, spec: ShapeSpec())), from: 1, now: 0)
        #expect(room.canvas.seq == 1 && journal.entries.count == 2)
        let run = room.epoch
        registry.handle(.failed(["a"], DiskFull()), now: 0)
        #expect(room.isRecovering && journal.loads.count == 1 && journal.loads[0].recovering)
        answerLoads(.success(StoredCanvas(snapshot: nil, log: [])))
        #expect(!room.isRecovering && room.canvas.seq == 0)
        // Clients saw a seq 1 that is gone: the history goes on as a new run, from seq 0.
        #expect(room.epoch.id != run.id && room.epoch.start == 0)
    }

    @Test("A loaded canvas comes checked and replayed up to the resume window, and its room is the one built from the checkpoint")
    func loadedUpToWindow() throws {
        var config = RoomConfig()
        config.retainedDeltas = 50
        let dot = Shape(id: "d", kind: .dot, center: Point(x: 100, y: 100), size: Size(width: 40, height: 40), fill: .seedDefault(hue: 0.2), z: 0)
        let log = [CommitRecord(canvas: "a", seq: 1, op: .create(dot, rng: 1), client: "c", opID: "o1")] + (2...300).map { seq in
            var p = Placement(of: dot)
            p.center.x = Double(100 + seq)
            return CommitRecord(canvas: "a", seq: seq, op: .place(p, before: Placement(of: dot)), client: "c", opID: "o\(seq)",
                                step: seq % 7 == 0 ? .undo(of: seq - 1) : nil)
        }
        let stored = StoredCanvas(snapshot: nil, log: log)
        let loaded = try LoadedCanvas(stored, id: "a", defaults: CanvasConfig(), window: config.retainedDeltas, undoDepth: config.undoDepth)
        #expect(loaded.canvas.seq == 250 && loaded.undoStacks.through == 300)
        let fast = Room(canvas: loaded.canvas, history: log, config: config, undoStacks: loaded.undoStacks, now: 0)
        let slow = Room(canvas: try Canvas(id: "a"), history: log, config: config, now: 0)
        #expect(fast.canvas.seq == 300 && fast.canvas.committedSnapshot == slow.canvas.committedSnapshot)
        #expect(fast.firstRetainedSeq == 251 && fast.firstRetainedSeq == slow.firstRetainedSeq && fast.retained.count == slow.retained.count)
        #expect(fast.histories["c"]?.undo.map { $0.seq } == slow.histories["c"]?.undo.map { $0.seq })
        #expect(fast.histories["c"]?.redo.map { $0.seq } == slow.histories["c"]?.redo.map { $0.seq })
        #expect(fast.ackOrder["c"].map { Array($0) } == slow.ackOrder["c"].map { Array($0) })
        // Through the registry: the room it makes from the journal's answer is the same.
        let registry = RoomRegistry(journal: journal, canvasDefaults: CanvasConfig(), roomConfig: config, metrics: RoomMetrics(),
                                    logger: Logger(label: "test"), post: { [posted] in posted.events.append($0) })
        registry.withRoom("a") { _ in }
        for load in journal.loads { load.done(.success(stored)) }
        for event in posted.events { registry.handle(event, now: 0) }
        let room = try #require(registry.rooms["a"])
        #expect(room.canvas.committedSnapshot == slow.canvas.committedSnapshot && room.firstRetainedSeq == 251)
        // A damaged log is refused where it was read.
        let damaged = StoredCanvas(snapshot: nil, log: log + [CommitRecord(canvas: "a", seq: 300, op: .clear(removed: []))])
        #expect(throws: DamagedCanvas.self) { try LoadedCanvas(damaged, id: "a", defaults: CanvasConfig(), window: 50, undoDepth: 100) }
    }

    @Test("A room with no session for the idle time is checkpointed and unloaded; one with a session stays")
    func unloads() throws {
        for id in ["a", "b"] { registry.withRoom(id) { _ in } }
        answerLoads(.success(StoredCanvas(snapshot: nil, log: [])))
        try #require(registry.rooms["b"]).join(session: 1, address: CanvasAddress(canvas: "b", zoom: 1), outbox: Outbox(), now: 0)
        registry.tick(now: 10, idleSeconds: 30)
        #expect(registry.rooms.count == 2)
        registry.tick(now: 31, idleSeconds: 30)
        #expect(registry.rooms.keys.sorted() == ["b"])
        #expect(journal.entries.contains { if case .checkpoint(let s, _) = $0 { s.id == "a" } else { false } })
    }

    @Test("With four tick phases, rooms spread one to a phase, each phase sends only its own rooms' live deltas, a forgotten room's phase goes to the next, and idle rooms unload in phase 0 only")
    func phases() throws {
        let posted = Posted()
        let registry = RoomRegistry(journal: journal, canvasDefaults: CanvasConfig(), roomConfig: RoomConfig(), metrics: RoomMetrics(),
                                    logger: Logger(label: "test"), tickPhases: 4, post: { posted.events.append($0) })
        func load(_ ids: [String]) {
            for id in ids { registry.withRoom(id) { _ in } }
            for load in journal.loads { load.done(.success(StoredCanvas(snapshot: nil, log: []))) }
            journal.loads.removeAll()
            for event in posted.events { registry.handle(event, now: 0) }
            posted.events.removeAll()
        }
        func message(_ json: String) throws -> ClientMessage { try ClientMessage.decode(Array(json.utf8)) }
        let ids = ["a", "b", "c", "d"]
        load(ids)
        var outboxes: [String: Outbox] = [:]
        for (i, id) in ids.enumerated() {
            let room = try #require(registry.rooms[id])
            let outbox = Outbox()
            outboxes[id] = outbox
            room.join(session: i + 1, address: CanvasAddress(canvas: id, zoom: 1), outbox: outbox, now: 0)
            room.receive(try message(#"{"type":"op","id":"s","op":"snap","x":100,"y":100,"shapeId":"s"}"#), from: i + 1, now: 0)
            room.receive(try message(#"{"type":"op","id":"m","op":"move","shape":"s","phase":"begin"}"#), from: i + 1, now: 0)
            while outbox.take(now: 0) != nil {}
        }
        // Each phase sends the live delta of one room, and each room's comes in exactly one phase.
        var sentIn: [String: Int] = [:]
        for phase in 0..<4 {
            registry.tick(phase: phase, now: 1, idleSeconds: 30)
            for id in ids where outboxes[id]!.hasUnsentLive && sentIn[id] == nil { sentIn[id] = phase }
        }
        #expect(Set(sentIn.values) == [0, 1, 2, 3] && sentIn.count == 4, "\(sentIn)")
        // An emptied room is unloaded by phase 0 only; the room made next takes its phase.
        let idle = try #require(sentIn.first { $0.value == 2 }?.key)
        registry.rooms[idle]?.leave(session: ids.firstIndex(of: idle)! + 1, now: 1)
        for phase in 1..<4 { registry.tick(phase: phase, now: 40, idleSeconds: 30) }
        #expect(registry.rooms[idle] != nil)
        registry.tick(phase: 0, now: 40, idleSeconds: 30)
        #expect(registry.rooms[idle] == nil && registry.rooms.count == 3)
        load(["e"])
        let room = try #require(registry.rooms["e"])
        let outbox = Outbox()
        room.join(session: 9, address: CanvasAddress(canvas: "e", zoom: 1), outbox: outbox, now: 40)
        room.receive(try message(#"{"type":"op","id":"s","op":"snap","x":100,"y":100,"shapeId":"s"}"#), from: 9, now: 40)
        room.receive(try message(#"{"type":"op","id":"m","op":"move","shape":"s","phase":"begin"}"#), from: 9, now: 40)
        while outbox.take(now: 40) != nil {}
        registry.tick(phase: 1, now: 41, idleSeconds: 30)
        #expect(!outbox.hasUnsentLive)
        registry.tick(phase: 2, now: 41, idleSeconds: 30)
        #expect(outbox.hasUnsentLive)
    }
}
