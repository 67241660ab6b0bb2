import Logging
import Testing

@testable import SnapboardCore
@testable import SnapboardProtocol
@testable import SnapboardRoom
@testable import SnapboardServer
@testable import SnapboardStore

/// What the registry does on a cluster node, against the fake journal: another node's canvas, writes
/// fenced, a lapsed lease, idle canvases given up.
@Suite("RoomRegistry in a cluster: owners elsewhere, fenced writes, releases")
struct RoomRegistryOwnershipTests {
    let journal = FakeJournal()
    let posted = Posted()
    let registry: RoomRegistry
    let released = Released()

    final class Released: @unchecked Sendable {
        var ids: [String] = []
        var dropped: [String] = []
    }

    init() {
        let posted = self.posted
        registry = RoomRegistry(journal: journal, canvasDefaults: CanvasConfig(), roomConfig: RoomConfig(), metrics: RoomMetrics(),
                                logger: Logger(label: "test"), post: { posted.events.append($0) })
        let released = self.released
        registry.releaseCanvas = { released.ids.append($0) }
        registry.onDropped = { released.dropped.append($0) }
    }

    func answerLoads(_ result: Result<StoredCanvas, any Error>, now: Double = 0) {
        let loads = journal.loads
        journal.loads.removeAll()
        for load in loads { load.done(result) }
        let events = posted.events
        posted.events.removeAll()
        for event in events { registry.handle(event, now: now) }
    }

    let other = NodeIdentity(id: "node-b", address: "http://127.0.0.1:9002")

    /// Loads canvas `id` with one op committed by session 1, and returns the room.
    func loadedWithAnOp(_ id: String) throws -> Room {
        registry.withRoom(id) { _ in }
        answerLoads(.success(StoredCanvas(snapshot: nil, log: [])))
        let room = try #require(registry.rooms[id])
        room.join(session: 1, address: CanvasAddress(canvas: id, zoom: 1), outbox: Outbox(), now: 0)
        room.receive(.op(id: "o1", .snap(at: Point(x: 100, y: 100), shapeID: nil, spec: ShapeSpec())), from: 1, now: 0)
        return room
    }

    @Test("A canvas another node owns is found elsewhere by everyone waiting for it, and no room is made")
    func ownedElsewhere() {
        var found: [RoomRegistry.Lookup] = []
        for creating in [true, false] { registry.lookUp("a", creating: creating) { found.append($0) } }
        answerLoads(.failure(OwnedElsewhere(canvas: "a", owner: other)))
        #expect(found.count == 2 && registry.rooms.isEmpty)
        for lookup in found {
            guard case .elsewhere(let owner) = lookup else { Issue.record("\(lookup)"); continue }
            #expect(owner == other)
        }
    }

    @Test("A fenced write drops the room without a checkpoint, tells the server to close its sessions, and the next load recovers")
    func fenced() throws {
        _ = try loadedWithAnOp("a")
        let written = journal.entries.count
        registry.handle(.failed(["a"], Fenced(canvases: ["a"])), now: 1)
        #expect(registry.rooms.isEmpty && released.dropped == ["a"])
        #expect(journal.entries.count == written, "nothing more written for it, no checkpoint")
        #expect(journal.loads.isEmpty, "no reload of its own: the room is gone")
        registry.withRoom("a") { _ in }
        #expect(journal.loads.count == 1 && journal.loads[0].recovering)
    }

    @Test("A lost lease drops the rooms it names as a fenced write does")
    func leaseLost() throws {
        _ = try loadedWithAnOp("a")
        _ = try loadedWithAnOp("b")
        registry.handle(.failed(["a"], LeaseLost()), now: 1)
        #expect(registry.rooms.keys.sorted() == ["b"] && released.dropped == ["a"])
    }

    @Test("Dropping everything (the lease lapsed) empties the registry; loads finishing meanwhile make no room until it may own again")
    func dropEverything() throws {
        _ = try loadedWithAnOp("a")
        registry.mayOwn = false
        registry.dropEverything(because: "test")
        #expect(registry.rooms.isEmpty && released.dropped == ["a"])
        var found: [RoomRegistry.Lookup] = []
        registry.lookUp("c", creating: true) { found.append($0) }
        answerLoads(.success(StoredCanvas(snapshot: nil, log: [])))
        #expect(registry.rooms.isEmpty)
        if case .unavailable? = found.first {} else { Issue.record("\(found)") }
        registry.mayOwn = true
        registry.withRoom("c") { _ in }
        answerLoads(.success(StoredCanvas(snapshot: nil, log: [])))
        #expect(registry.rooms["c"] != nil)
    }

    @Test("A load asked for before a fenced write was reported is done again, recovering, for the same waiters")
    func staleLoad() throws {
        var got: [Room?] = []
        registry.withRoom("a") { got.append($0) }
        #expect(journal.loads.count == 1 && !journal.loads[0].recovering)
        // Fenced (a batch of an earlier room of it) while that plain load is on its way.
        registry.handle(.failed(["a"], Fenced(canvases: ["a"])), now: 1)
        answerLoads(.success(StoredCanvas(snapshot: nil, log: [])))
        #expect(got.isEmpty && journal.loads.count == 1 && journal.loads[0].recovering)
        answerLoads(.success(StoredCanvas(snapshot: nil, log: [])))
        #expect(got.count == 1 && got[0] != nil)
        // Recovered: the next load after an unload is a plain one again.
        registry.tick(now: 40, idleSeconds: 30)
        registry.withRoom("a") { _ in }
        #expect(journal.loads.count == 1 && !journal.loads[0].recovering)
    }

    @Test("An idle room is checkpointed, then given up; a lookup that finds nothing to make gives its claim up too")
    func releases() throws {
        registry.withRoom("a") { _ in }
        answerLoads(.success(StoredCanvas(snapshot: nil, log: [])))
        registry.tick(now: 31, idleSeconds: 30)
        #expect(registry.rooms.isEmpty && released.ids == ["a"])
        #expect(journal.entries.contains { if case .checkpoint(let s, _) = $0 { s.id == "a" } else { false } })
        registry.lookUp("never", creating: false) { _ in }
        answerLoads(.success(StoredCanvas(snapshot: nil, log: [])))
        #expect(released.ids == ["a", "never"])
    }

    @Test("A reload after an ordinary failed write that finds another owner drops the room")
    func reloadFindsAnotherOwner() throws {
        _ = try loadedWithAnOp("a")
        registry.handle(.failed(["a"], DiskFull()), now: 1)
        #expect(journal.loads.count == 1 && journal.loads[0].recovering)
        let loads = journal.loads
        journal.loads.removeAll()
        loads[0].done(.failure(OwnedElsewhere(canvas: "a", owner: other)))
        for event in posted.events { registry.handle(event, now: 2) }
        #expect(registry.rooms.isEmpty && released.dropped == ["a"])
    }
}
