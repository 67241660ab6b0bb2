import Testing

@testable import SnapboardCore
@testable import SnapboardProtocol
@testable import SnapboardRoom

/// Z-order and lock (1.6, P25) in the room: commits, refusals, unchanged answers, undo, and resume.
@Suite("Room: z-order and lock (P25)")
struct OrderLockRoomTests {
    /// A journaled room with shapes `s` (bottom) and `t` overlapping it, durable, a writer (session 1,
    /// client "c1") and a watcher (session 2, client "c2"), both drained after a tick (which sends the
    /// writer its session list, P11).
    func room() throws -> (Room, UnchangedOpTests.Capture, Peer, Peer) {
        let room = try makeRoom()
        let capture = UnchangedOpTests.Capture()
        room.journal = { capture.entries.append($0) }
        let writer = Peer(id: 1), watcher = Peer(id: 2)
        room.join(writer, client: "c1")
        room.join(watcher, client: "c2")
        room.receive(op("o1", "snap", ##""x":500,"y":500,"shapeId":"s","shape":{"kind":"oval","w":100,"h":100}"##), from: 1, now: 0)
        room.receive(op("o2", "snap", ##""x":540,"y":500,"shapeId":"t","shape":{"kind":"oval","w":100,"h":100}"##), from: 1, now: 0)
        room.durable(through: 2, now: 0)
        room.tick(now: 0)
        try writer.drain(); try watcher.drain()
        return (room, capture, writer, watcher)
    }

    @Test("[P25] An order and a lock each commit once: one seq, one delta with the changed shapes to everyone, then the ack")
    func commits() throws {
        let (room, journal, writer, watcher) = try room()
        room.receive(op("r1", "order", ##""shapes":["s"],"to":"front""##), from: 1, now: 1)
        room.receive(op("r2", "lock", ##""shapes":["s","t"],"locked":true"##), from: 1, now: 1)
        #expect(room.canvas.seq == 4 && journal.commits == 4)
        room.durable(through: 4, now: 1)
        let seen = try watcher.drain(), got = try writer.drain()
        #expect(seen.map { $0["type"] } == [.string("delta"), .string("delta")])
        #expect(seen[0]["seq"] == .number(3) && seen[0]["ops"] == .array([.string("r1")]) && seen[0]["live"] == .bool(false))
        #expect(seen[0]["shapes"]?[0]?["id"] == .string("s") && seen[0]["shapes"]?[0]?["z"] == .number(2))
        guard case .array(let locked)? = seen[1]["shapes"] else { Issue.record("no shapes"); return }
        #expect(locked.count == 2 && locked.allSatisfy { $0["locked"] == .bool(true) })
        #expect(got.filter { $0["type"] == .string("ack") } == [
            .object(["type": .string("ack"), "id": .string("r1"), "seq": .number(3)]),
            .object(["type": .string("ack"), "id": .string("r2"), "seq": .number(4)]),
        ])
    }

    @Test("[P25, P14] An order or lock that changes nothing: no seq, no delta, an unchanged ack once its answer is stored")
    func unchanged() throws {
        let (room, journal, writer, watcher) = try room()
        room.receive(op("u1", "order", ##""shapes":["t"],"to":"front""##), from: 1, now: 1)
        room.receive(op("u2", "lock", ##""shapes":["s"],"locked":false"##), from: 1, now: 1)
        room.tick(now: 1.02)
        #expect(room.canvas.seq == 2 && journal.commits == 2)
        room.answersDurable(journal.answered, now: 1.03)
        #expect(try watcher.drain().isEmpty)
        #expect(try writer.drain() == [
            .object(["type": .string("ack"), "id": .string("u1"), "seq": .number(2), "unchanged": .bool(true)]),
            .object(["type": .string("ack"), "id": .string("u2"), "seq": .number(2), "unchanged": .bool(true)]),
        ])
    }

    @Test("[P25] A locked shape's move, scale, rotate and delete are refused locked, for everyone; order and unlock go through")
    func lockedRefusals() throws {
        let (room, _, writer, watcher) = try room()
        room.receive(op("l1", "lock", ##""shapes":["s"],"locked":true"##), from: 1, now: 1)
        room.durable(through: 3, now: 1)
        try writer.drain(); try watcher.drain()
        let refused = [op("b1", "move", ##""shape":"s","phase":"begin""##), op("b2", "scale", ##""shape":"s","factor":2"##),
                       op("b3", "rotate", ##""shape":"s","phase":"update","radians":1"##), op("b4", "delete", ##""shapes":["t","s"]"##)]
        for message in refused { room.receive(message, from: 2, now: 1.1) }
        let answers = try watcher.drain()
        #expect(answers.map { $0["code"] } == Array(repeating: .string("locked"), count: 4))
        #expect(room.canvas.seq == 3 && room.canvas.count == 2 && room.canvas.leases.isEmpty)
        room.receive(op("b5", "order", ##""shapes":["s"],"to":"front""##), from: 2, now: 1.2)
        room.receive(op("b6", "lock", ##""shapes":["s"],"locked":false"##), from: 2, now: 1.2)
        room.receive(op("b7", "move", ##""shape":"s","dx":10,"dy":0"##), from: 2, now: 1.2)
        #expect(room.canvas.seq == 6 && room.canvas.shape("s")?.locked == false)
    }

    @Test("[P22, P25] Undo of a lock unlocks; an undo passes over a change that would move a locked shape, naming it locked")
    func undo() throws {
        let (room, _, writer, watcher) = try room()
        room.receive(op("m1", "move", ##""shape":"t","dx":0,"dy":200"##), from: 1, now: 1)
        room.receive(op("l1", "lock", ##""shapes":["t"],"locked":true"##), from: 2, now: 1)
        room.receive(op("l2", "lock", ##""shapes":["s"],"locked":true"##), from: 1, now: 1)
        room.durable(through: 5, now: 1)
        try writer.drain(); try watcher.drain()
        // The writer's last change is its lock of s: undone, s is unlocked.
        room.receive(op("u1", "undo"), from: 1, now: 2)
        #expect(room.canvas.seq == 6 && room.canvas.shape("s")?.locked == false)
        // Next its move of t, which the watcher locked since: passed over (t is named locked), and so is
        // t's creation (t moved since); the undo reverts the creation of s.
        room.receive(op("u2", "undo"), from: 1, now: 2)
        room.durable(through: 7, now: 2)
        let answers = try writer.drain().filter { $0["type"] != .string("delta") }
        #expect(answers.first == .object(["type": .string("ack"), "id": .string("u1"), "seq": .number(6)]))
        #expect(answers.last?["id"] == .string("u2") && answers.last?["seq"] == .number(7))
        #expect(answers.last?["skipped"]?[0] == .object(["shape": .string("t"), "code": .string("locked")]))
        #expect(room.canvas.shape("t")?.locked == true && room.canvas.shape("s") == nil)
    }
}

extension JournalTests {
    @Test("[P16, P25] A resume through deltas rebuilt from the log carries orders and locks as whole shapes, in their state then")
    func resumeRebuildsOrdersAndLocks() throws {
        let (room, journal) = try journaledRoom()
        let a = Peer(id: 1)
        room.join(a, client: "c1")
        room.receive(op("o1", "snap", ##""shapeId":"A","x":100,"y":100"##), from: 1, now: 0)
        room.receive(op("o2", "snap", ##""shapeId":"B","x":110,"y":100"##), from: 1, now: 0)
        room.receive(op("o3", "move", ##""shape":"A","dx":30,"dy":5"##), from: 1, now: 0)
        room.receive(op("o4", "order", ##""shapes":["A"],"to":"back""##), from: 1, now: 0)
        room.receive(op("o5", "lock", ##""shapes":["A","B"],"locked":true"##), from: 1, now: 0)
        let final = try #require(room.canvas.shape("A"))
        let again = try restored(from: room, journal)
        let b = Peer(id: 2)
        again.join(b, since: 3)
        try b.drain()
        #expect(b.received.first?["resumed"] == .bool(true))
        let deltas = b.of("delta")
        #expect(deltas.map { $0["seq"] } == [.number(4), .number(5)])
        // The order's A is where the move left it, with its new z; the lock's shapes are whole and locked.
        var w = JSONWriter()
        var ordered = final
        ordered.locked = false
        ServerMessage.writeShape(&w, ordered)
        #expect(deltas[0]["shapes"] == .array([try JSONValue.parse(w.bytes)]))
        guard case .array(let locked)? = deltas[1]["shapes"] else { Issue.record("no shapes"); return }
        #expect(locked.compactMap { Shape(json: $0) } == [final, again.canvas.shape("B")!])
    }
}
