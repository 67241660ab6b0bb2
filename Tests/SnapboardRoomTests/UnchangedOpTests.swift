import Testing

@testable import SnapboardCore
@testable import SnapboardProtocol
@testable import SnapboardRoom

/// An op that changes nothing commits nothing (P6, P14): the room's side of it.
@Suite("Room: an op that changes nothing commits nothing (P6, P14)")
struct UnchangedOpTests {
    final class Capture {
        var entries: [JournalEntry] = []
        var commits: Int { entries.filter { if case .commit = $0 { true } else { false } }.count }
        var answered: [AnsweredOp] { entries.compactMap { if case .answered(let op) = $0 { op } else { nil } } }
    }

    /// A journaled room with shape `s` at (500, 500), durable, a writer (session 1, client "c1") and a
    /// watcher (session 2), both drained.
    func room() throws -> (Room, Capture, Peer, Peer) {
        let room = try makeRoom()
        let capture = Capture()
        room.journal = { capture.entries.append($0) }
        let writer = Peer(id: 1), watcher = Peer(id: 2)
        room.join(writer, client: "c1")
        room.join(watcher)
        room.receive(op("o1", "snap", ##""x":500,"y":500,"shapeId":"s""##), from: 1, now: 0)
        room.receive(op("o2", "snap", ##""x":100,"y":100,"shapeId":"t""##), from: 1, now: 0)
        room.durable(through: 2, now: 0)
        try writer.drain(); try watcher.drain()
        return (room, capture, writer, watcher)
    }

    func shape(_ id: String, in delta: JSONValue?) -> JSONValue? {
        guard case .array(let shapes)? = delta?["shapes"] else { return nil }
        return shapes.first { $0["id"] == .string(id) }
    }

    @Test("[P6] An end back where it began: no seq, no commit journaled, the shape put back live for everyone, then the unchanged ack once its answer is stored")
    func identityEnd() throws {
        let (room, journal, writer, watcher) = try room()
        let commits = journal.commits
        let committed = room.canvas.shape("s")!
        room.receive(op("m1", "move", ##""shape":"s","phase":"begin""##), from: 1, now: 1)
        room.receive(op("m2", "move", ##""shape":"s","phase":"update","dx":40,"dy":0"##), from: 1, now: 1)
        room.tick(now: 1)
        try writer.drain(); try watcher.drain()
        room.receive(op("m3", "move", ##""shape":"s","phase":"update","dx":0,"dy":0"##), from: 1, now: 1.01)
        room.receive(op("m4", "move", ##""shape":"s","phase":"end","dx":0,"dy":0"##), from: 1, now: 1.01)
        #expect(room.canvas.seq == 2 && journal.commits == commits && room.canvas.leases.isEmpty)
        room.tick(now: 1.02)
        #expect(journal.answered == [AnsweredOp(canvas: room.canvas.id, client: "c:c1", opID: "m4", seq: 2)])
        room.answersDurable(journal.answered, now: 1.03)
        let seen = try watcher.drain(), got = try writer.drain()
        #expect(seen.map { $0["type"] } == [.string("presence"), .string("delta")])
        #expect(seen[0]["event"] == .string("lease") && seen[0]["leases"] == .object([:]))
        for delta in [seen[1], got[1]] {
            #expect(delta["live"] == .bool(true) && delta["seq"] == .number(2) && delta["ops"] == .array([.string("m3"), .string("m4")]))
            let s = try #require(shape("s", in: delta))
            #expect(s["x"] == .number(committed.center.x) && s["y"] == .number(committed.center.y) && s["z"] == .number(0))
        }
        #expect(got.map { $0["type"] } == [.string("presence"), .string("delta"), .string("ack")])
        #expect(got[2] == .object(["type": .string("ack"), "id": .string("m4"), "seq": .number(2), "unchanged": .bool(true)]))
        #expect(room.canvas.shape("s")!.z == 0)
    }

    @Test("[P6] An unchanged ack waits, like any ack, until the seq it names is durable and its answer is stored, and keeps its place after earlier acks")
    func waitsForDurable() throws {
        let (room, journal, writer, _) = try room()
        room.receive(op("o3", "snap", ##""x":300,"y":300"##), from: 1, now: 2)
        room.receive(op("n1", "move", ##""shape":"s","dx":0,"dy":0"##), from: 1, now: 2)
        room.tick(now: 2.01)
        let early = try writer.drain()
        #expect(early.allSatisfy { $0["type"] != .string("ack") }, "\(early)")
        room.durable(through: 3, now: 2.02)
        #expect(try writer.drain() == [.object(["type": .string("ack"), "id": .string("o3"), "seq": .number(3)])])
        room.answersDurable(journal.answered, now: 2.03)
        #expect(try writer.drain() == [.object(["type": .string("ack"), "id": .string("n1"), "seq": .number(3), "unchanged": .bool(true)])])
    }

    @Test("[P15] An unchanged op is remembered while the canvas is loaded: a resend, even after a later op moved the shape, gets the unchanged ack again and moves nothing")
    func resendAnsweredAgain() throws {
        let (room, journal, writer, _) = try room()
        room.receive(op("e1", "move", ##""shape":"t","dx":-600,"dy":0,"snap":false"##), from: 1, now: 3)
        room.durable(through: 3, now: 3)
        let edge = room.canvas.shape("t")!
        #expect(edge.bounds.minX == 0)
        // Nudged into the edge it lies against: kept in, it goes nowhere new.
        room.receive(op("n1", "move", ##""shape":"t","dx":-5,"dy":0,"snap":false"##), from: 1, now: 3.1)
        room.tick(now: 3.11)
        room.answersDurable(journal.answered, now: 3.12)
        // A later op moves the shape away from the edge, where the nudge would now change something.
        room.receive(op("e2", "move", ##""shape":"t","dx":200,"dy":0,"snap":false"##), from: 1, now: 3.2)
        room.durable(through: 4, now: 3.2)
        let moved = room.canvas.shape("t")!
        // A late copy of the nudge (a resend, or one that took a slower road): answered as before, applied never.
        room.receive(op("n1", "move", ##""shape":"t","dx":-5,"dy":0,"snap":false"##), from: 1, now: 3.3)
        room.tick(now: 3.31)
        let acks = try writer.drain().filter { $0["type"] == .string("ack") }
        #expect(acks == [.object(["type": .string("ack"), "id": .string("e1"), "seq": .number(3)]),
                         .object(["type": .string("ack"), "id": .string("n1"), "seq": .number(3), "unchanged": .bool(true)]),
                         .object(["type": .string("ack"), "id": .string("e2"), "seq": .number(4)]),
                         .object(["type": .string("ack"), "id": .string("n1"), "seq": .number(3), "unchanged": .bool(true)])])
        #expect(room.metrics.duplicateOps == 1 && room.canvas.seq == 4 && room.canvas.shape("t") == moved)
    }

    @Test("[P14] A lease that expires, or a disconnect, with the shape back where it began commits nothing")
    func serverEndedAtIdentity() throws {
        let (room, journal, _, watcher) = try room()
        let commits = journal.commits
        room.receive(op("m1", "move", ##""shape":"s","phase":"begin""##), from: 1, now: 1)
        room.receive(op("m2", "move", ##""shape":"s","phase":"update","dx":40,"dy":0"##), from: 1, now: 1)
        room.receive(op("m3", "move", ##""shape":"s","phase":"update","dx":0,"dy":0"##), from: 1, now: 1)
        room.tick(now: 1.01)
        try watcher.drain()
        room.tick(now: 7)
        let expired = try watcher.drain()
        #expect(room.canvas.seq == 2 && journal.commits == commits && room.metrics.leaseExpiries == 1)
        #expect(expired.allSatisfy { $0["live"] != .bool(false) })
        #expect(shape("s", in: expired.last { $0["type"] == .string("delta") })?["z"] == .number(0))

        room.receive(op("r1", "rotate", ##""shape":"t","phase":"begin""##), from: 1, now: 8)
        room.receive(op("r2", "rotate", ##""shape":"t","phase":"update","radians":0.7"##), from: 1, now: 8)
        room.receive(op("r3", "rotate", ##""shape":"t","phase":"update","radians":0"##), from: 1, now: 8)
        room.tick(now: 8.01)
        try watcher.drain()
        room.leave(session: 1, now: 8.02)
        room.tick(now: 8.03)
        let left = try watcher.drain()
        #expect(room.canvas.seq == 2 && journal.commits == commits)
        #expect(left.allSatisfy { $0["live"] != .bool(false) })
        #expect(shape("t", in: left.last { $0["type"] == .string("delta") })?["rotation"] == .number(0))
    }
}
