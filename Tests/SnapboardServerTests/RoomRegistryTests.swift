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
}
