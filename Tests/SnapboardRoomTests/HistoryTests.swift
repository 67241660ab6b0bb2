import Testing

@testable import SnapboardCore
@testable import SnapboardProtocol
@testable import SnapboardRoom

@Suite("Room: delete, per-client undo and redo (P22)")
struct HistoryTests {
    /// Ann (client "ann") and Ben (client "ben") on one room.
    func pair() throws -> (Room, Peer, Peer) {
        let room = try makeRoom()
        let ann = Peer(id: 1), ben = Peer(id: 2)
        room.join(ann, client: "ann")
        room.join(ben, client: "ben")
        return (room, ann, ben)
    }

    func acks(_ peer: Peer) throws -> [JSONValue] {
        try peer.drain()
        return peer.of("ack") + peer.of("reject")
    }

    func center(_ room: Room, _ id: ShapeID) -> Point? { room.canvas.shape(id)?.center }

    @Test("A delete is a committed op: everyone gets the removal, the sender the ack; a shape another session drags is refused")
    func delete() throws {
        let (room, ann, ben) = try pair()
        room.receive(op("a1", "snap", ##""x":100,"y":100,"shapeId":"a""##), from: 1, now: 0)
        room.receive(op("a2", "snap", ##""x":400,"y":100,"shapeId":"b""##), from: 1, now: 0)
        room.receive(op("b1", "move", ##""shape":"b","phase":"begin""##), from: 2, now: 0)
        room.receive(op("a3", "delete", ##""shapes":["a","b"]"##), from: 1, now: 0)
        try ann.drain(); try ben.drain()
        #expect(ann.of("reject").last?["code"] == .string("shape_locked") && room.canvas.count == 2)
        room.receive(op("a4", "delete", ##""shapes":["a"]"##), from: 1, now: 0)
        try ann.drain(); try ben.drain()
        let removal = try #require(ben.of("delta").last)
        #expect(removal["seq"] == .number(3) && removal["removed"] == .array([.string("a")]) && removal["ops"] == .array([.string("a4")]))
        #expect(ann.of("ack").last?["seq"] == .number(3))
    }

    @Test("Undo reverts the sender's own last change, whatever others did in between; redo re-applies it")
    func undoOwnChanges() throws {
        let (room, ann, ben) = try pair()
        room.receive(op("a1", "snap", ##""x":100,"y":100,"shapeId":"a""##), from: 1, now: 0)
        let created = try #require(center(room, "a"))
        room.receive(op("a2", "move", ##""shape":"a","dx":300,"dy":0"##), from: 1, now: 0)
        room.receive(op("b1", "snap", ##""x":700,"y":500,"shapeId":"b""##), from: 2, now: 0)
        let moved = try #require(center(room, "a"))
        #expect(moved != created)
        room.receive(op("a3", "undo"), from: 1, now: 0)
        #expect(center(room, "a") == created && room.canvas.count == 2, "ann's move is undone, ben's shape stays")
        room.receive(op("a4", "undo"), from: 1, now: 0)
        #expect(room.canvas.shape("a") == nil && room.canvas.count == 1)
        room.receive(op("a5", "undo"), from: 1, now: 0)
        #expect(try acks(ann).last?["code"] == .string("nothing_to_undo"))
        room.receive(op("a6", "redo"), from: 1, now: 0)
        room.receive(op("a7", "redo"), from: 1, now: 0)
        #expect(center(room, "a") == moved)
        room.receive(op("a8", "redo"), from: 1, now: 0)
        #expect(try acks(ann).last?["code"] == .string("nothing_to_redo"))
        // Everyone else sees undo and redo as ordinary commits: a delta each, no guides.
        try ben.drain()
        let committed = ben.of("delta").filter { $0["live"] == .bool(false) }
        #expect(committed.map { $0["seq"] } == (1...7).map { .number(Double($0)) })
        #expect(committed[4]["removed"] == .array([.string("a")]) && committed[4]["ops"] == .array([.string("a4")]))
        #expect(committed.allSatisfy { $0["events"] == .array([]) })
        // Ben's own history is his: his undo removes his shape, not ann's.
        room.receive(op("b2", "undo"), from: 2, now: 0)
        #expect(room.canvas.shape("b") == nil && room.canvas.shape("a") != nil)
    }

    @Test("A new change clears the redo stack")
    func newChangeClearsRedo() throws {
        let (room, ann, _) = try pair()
        room.receive(op("a1", "snap", ##""x":100,"y":100,"shapeId":"a""##), from: 1, now: 0)
        room.receive(op("a2", "undo"), from: 1, now: 0)
        room.receive(op("a3", "snap", ##""x":300,"y":100,"shapeId":"c""##), from: 1, now: 0)
        room.receive(op("a4", "redo"), from: 1, now: 0)
        #expect(try acks(ann).last?["code"] == .string("nothing_to_redo") && room.canvas.shape("a") == nil)
    }

    @Test("Undo of a delete and of a clear brings the shapes back with their ids and z")
    func undoDeleteAndClear() throws {
        let (room, _, ben) = try pair()
        room.receive(op("a1", "snap", ##""x":100,"y":100,"shapeId":"a""##), from: 1, now: 0)
        room.receive(op("a2", "snap", ##""x":300,"y":100,"shapeId":"b""##), from: 1, now: 0)
        let before = room.canvas.shapes
        room.receive(op("b1", "delete", ##""shapes":["a"]"##), from: 2, now: 0)
        room.receive(op("b2", "undo"), from: 2, now: 0)
        #expect(room.canvas.shapes == before)
        room.receive(op("b3", "clear"), from: 2, now: 0)
        room.receive(op("b4", "undo"), from: 2, now: 0)
        #expect(room.canvas.shapes == before)
        try ben.drain()
        #expect(ben.of("delta").last?["shapes"].map { if case .array(let s) = $0 { s.count } else { 0 } } == 2)
    }

    @Test("Conflicts: a shape someone else changed since is left alone and named in the ack; the rest is undone")
    func conflicts() throws {
        let (room, ann, _) = try pair()
        room.receive(op("a1", "snap", ##""x":100,"y":100,"shapeId":"a""##), from: 1, now: 0)
        room.receive(op("a2", "snap", ##""x":300,"y":100,"shapeId":"b""##), from: 1, now: 0)
        room.receive(op("a3", "delete", ##""shapes":["a","b"]"##), from: 1, now: 0)
        room.receive(op("b1", "snap", ##""x":500,"y":500,"shapeId":"b""##), from: 2, now: 0)  // ben takes the id b
        let bens = room.canvas.shape("b")
        room.receive(op("a4", "undo"), from: 1, now: 0)
        let ack = try #require(try acks(ann).last)
        #expect(ack["id"] == .string("a4") && ack["skipped"] == .array([.object(["shape": .string("b"), "code": .string("changed_since")])]))
        #expect(room.canvas.shape("a") != nil && room.canvas.shape("b") == bens)
        // Ann's next change to undo is c's creation, but ben moved c: her undo passes over it to d's.
        room.receive(op("a5", "snap", ##""x":100,"y":600,"shapeId":"d""##), from: 1, now: 0)
        room.receive(op("a6", "snap", ##""x":300,"y":600,"shapeId":"c""##), from: 1, now: 0)
        room.receive(op("b2", "move", ##""shape":"c","dx":50,"dy":0"##), from: 2, now: 0)
        room.receive(op("a7", "undo"), from: 1, now: 0)
        let second = try #require(try acks(ann).last)
        #expect(second["type"] == .string("ack") && second["id"] == .string("a7"))
        #expect(second["skipped"] == .array([.object(["shape": .string("c"), "code": .string("changed_since")])]))
        #expect(room.canvas.shape("c") != nil && room.canvas.shape("d") == nil, "c stays: ben moved it")
        // Under someone's gesture: left alone with shape_locked; with nothing else left, a reject.
        room.receive(op("a8", "redo"), from: 1, now: 0)
        room.receive(op("b3", "move", ##""shape":"d","phase":"begin""##), from: 2, now: 0)
        room.receive(op("a9", "undo"), from: 1, now: 0)
        let third = try #require(try acks(ann).last)
        #expect(third["type"] == .string("ack") && third["skipped"]?[0]?["code"] == .string("shape_locked"))
    }

    @Test("The history lives in the op log: after a reload, undo and redo carry on where they were")
    func historySurvivesReload() throws {
        let room = try makeRoom()
        var entries: [JournalEntry] = []
        room.journal = { entries.append($0) }
        let ann = Peer(id: 1)
        room.join(ann, client: "ann")
        room.receive(op("a1", "snap", ##""x":100,"y":100,"shapeId":"a""##), from: 1, now: 0)
        let created = room.canvas.shape("a")?.center
        room.receive(op("a2", "move", ##""shape":"a","dx":200,"dy":0"##), from: 1, now: 0)
        room.receive(op("a3", "snap", ##""x":600,"y":100,"shapeId":"c""##), from: 1, now: 0)
        room.receive(op("a4", "undo"), from: 1, now: 0)
        let log = entries.compactMap { if case .commit(let r) = $0 { r } else { nil } }
        #expect(log.last?.step == .undo(of: 3))
        let again = Room(canvas: try Canvas(id: "room", config: room.canvas.config), history: log, now: 1)
        #expect(again.canvas.committedSnapshot == room.canvas.committedSnapshot)
        let back = Peer(id: 5)
        again.join(back, client: "ann")
        again.receive(op("a5", "redo"), from: 5, now: 1)
        #expect(again.canvas.shape("c") != nil)
        again.receive(op("a6", "undo"), from: 5, now: 1)
        again.receive(op("a7", "undo"), from: 5, now: 1)
        #expect(again.canvas.shape("c") == nil && again.canvas.shape("a")?.center == created)
        // Another client id has no history here.
        let other = Peer(id: 6)
        again.join(other, client: "someone")
        again.receive(op("x1", "undo"), from: 6, now: 1)
        #expect(try acks(other).last?["code"] == .string("nothing_to_undo"))
    }

    @Test("A room over a long log rebuilds every client's undo and redo stacks, on another thread, as they were kept commit by commit")
    func longLogHistories() throws {
        var rng = SeededGenerator(state: 32)
        let count = Room.concurrentHistoriesFrom + 5_000
        // Mostly changes, some undos and redos of recent commits; each client's last commit is an undo.
        let clients = ["ann", "ben", "cy"]
        let log = (1...count).map { seq in
            let back = seq - Int.random(in: 1...12, using: &rng)
            let step: HistoryStep? = switch seq > count - 3 ? 0 : Int.random(in: 0..<40, using: &rng) {
            case 0: .undo(of: back)
            case 1: .redo(of: back)
            default: nil
            }
            let client = seq > count - 3 ? clients[count - seq] : clients.randomElement(using: &rng)!
            return CommitRecord(canvas: "room", seq: seq, op: .clear(removed: []), client: client, step: step)
        }
        let room = Room(canvas: try Canvas(id: "room"), history: log, now: 0)
        #expect(room.canvas.seq == count)
        let oneByOne = try makeRoom()
        for record in log { oneByOne.noteHistory(record.op, seq: record.seq, client: record.client!, step: record.step) }
        #expect(Set(room.histories.keys) == ["ann", "ben", "cy"])
        for (client, history) in oneByOne.histories {
            #expect(room.histories[client]?.undo.map(\.seq) == history.undo.map(\.seq), "\(client)")
            #expect(room.histories[client]?.redo.map(\.seq) == history.redo.map(\.seq), "\(client)")
        }
        #expect(oneByOne.histories.values.contains { $0.undo.count == oneByOne.config.undoDepth })
        #expect(oneByOne.histories.values.contains { !$0.redo.isEmpty })
    }

    @Test("An undo takes its target and the newer entries it passed over off the stack, never an older one")
    func undoPopsDownToItsTarget() throws {
        let room = try makeRoom()
        for seq in [5, 7, 11] { room.noteHistory(.clear(removed: []), seq: seq, client: "c:x", step: nil) }
        room.noteHistory(.clear(removed: []), seq: 12, client: "c:x", step: .undo(of: 6))
        #expect(room.histories["c:x"]?.undo.map(\.seq) == [5])
        #expect(room.histories["c:x"]?.redo.map(\.seq) == [12])
    }

    @Test("[P8] An update committed in the same tick as its end is listed in no delta; other live changes keep theirs")
    func updateAndEndInOneTick() throws {
        let (room, ann, ben) = try pair()
        room.receive(op("a1", "snap", ##""x":100,"y":100,"shapeId":"a""##), from: 1, now: 0)
        room.receive(op("b1", "snap", ##""x":600,"y":600,"shapeId":"b""##), from: 2, now: 0)
        room.receive(op("a2", "move", ##""shape":"a","phase":"begin""##), from: 1, now: 0)
        room.receive(op("b2", "move", ##""shape":"b","phase":"begin""##), from: 2, now: 0)
        room.tick(now: 0.016)
        try ann.drain(); try ben.drain()
        room.receive(op("a3", "move", ##""shape":"a","phase":"update","dx":50,"dy":0"##), from: 1, now: 0.02)
        room.receive(op("b3", "move", ##""shape":"b","phase":"update","dx":50,"dy":0"##), from: 2, now: 0.02)
        room.receive(op("a4", "move", ##""shape":"a","phase":"end","dx":60,"dy":0"##), from: 1, now: 0.021)
        room.tick(now: 0.032)
        try ben.drain()
        let since = ben.received.filter { $0["type"] == .string("delta") }.suffix(2)
        #expect(since.first?["live"] == .bool(false) && since.first?["ops"] == .array([.string("a4")]))
        #expect(since.last?["live"] == .bool(true) && since.last?["ops"] == .array([.string("b3")]))
        room.tick(now: 0.048)
        try ben.drain()
        #expect(!ben.received.contains { $0["ops"] == .array([.string("a3")]) || ($0["ops"]?[0] == .string("a3")) })
    }

    @Test("[P3] The welcome announces the snapping thresholds at zoom 1, whatever the client's zoom, and gap snapping")
    func thresholdsAtZoomOne() throws {
        let room = try makeRoom()
        let zoomed = Peer(id: 1)
        room.join(session: 1, address: CanvasAddress(canvas: "room", zoom: 4), outbox: zoomed.outbox, now: 0)
        try zoomed.drain()
        let snapping = try #require(zoomed.of("welcome").first?["snapping"])
        #expect(snapping["threshold"] == .number(5) && snapping["release"] == .number(9) && snapping["gaps"] == .bool(true))
    }
}
