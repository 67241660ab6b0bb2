import Testing

@testable import SnapboardCore
@testable import SnapboardProtocol
@testable import SnapboardRoom

/// The session ids a presence message's `sessions` lists, in order.
private func listed(_ message: JSONValue?) -> [Int]? {
    guard case .array(let list)? = message?["sessions"] else { return nil }
    return list.compactMap { if case .number(let n)? = $0["session"] { Int(n) } else { nil } }
}

@Suite("[P11] Presence lists for 1.1 clients: coalesced, bounded, exact")
struct PresenceListTests {
    @Test("[P11] Joins in one tick give a 1.1 client one list, the true one; a 1.2 client gets each join at once")
    func oneListPerTick() throws {
        let room = try makeRoom()
        let old = Peer(id: 1), new = Peer(id: 2)
        room.join(old); room.join(new, revision: 2)
        room.tick(now: 0)
        try old.drain(); try new.drain()
        for id in 3...22 { room.join(Peer(id: id), revision: id % 2 == 0 ? 2 : 1, now: 0.001) }
        #expect(try old.drain().isEmpty, "a 1.1 client's list waits for the tick")
        let changes = try new.drain()
        #expect(changes.map { $0["session"] } == (3...22).map { .number(Double($0)) })
        #expect(changes.allSatisfy { $0["event"] == .string("join") && $0["sessions"] == nil })
        room.tick(now: 0.016)
        let lists = try old.drain().filter { $0["type"] == .string("presence") }
        #expect(lists.count == 1)
        #expect(listed(lists.first) == Array(1...22))
        #expect(lists.first?["event"] == .string("join") && lists.first?["session"] == .number(22))
        room.tick(now: 0.032)
        #expect(try old.drain().isEmpty, "nothing changed since the list")
    }

    @Test("[P11] Under joins and leaves over many ticks, a 1.1 client's lists stay within the byte rate and the last is exact")
    func boundedAndExact() throws {
        let room = try makeRoom { $0.presenceListBytesPerSecond = 4_096 }
        let old = Peer(id: 1)
        room.join(old)
        try old.drain()
        var live = Set([1])
        var bytes = 0, lists: [JSONValue] = []
        var now = 0.0
        for step in 0..<300 {
            now = Double(step) * 0.016
            let id = 100 + step
            room.join(Peer(id: id), now: now)
            live.insert(id)
            if step % 3 == 2 {
                room.leave(session: id - 1, now: now)
                live.remove(id - 1)
            }
            room.tick(now: now)
            while let message = old.outbox.take(now: now) {
                bytes += message.bytes.count
                lists += try JSONValue.parse(message.bytes).arrayOrSelf.filter { $0["type"] == .string("presence") }
            }
        }
        // The last list is held back by its predecessor's bytes; the ticks after the last change send it.
        for step in 1...400 { room.tick(now: now + Double(step) * 0.016) }
        while let message = old.outbox.take(now: now) {
            bytes += message.bytes.count
            lists += try JSONValue.parse(message.bytes).arrayOrSelf.filter { $0["type"] == .string("presence") }
        }
        let last = try #require(lists.last)
        #expect(Set(listed(last) ?? []) == live && listed(last)?.count == live.count)
        // 300 lists of up to 200 sessions, one per join, would be about 2 MB; the rate allows 4 KiB a
        // second over the 4.8 s of joins, plus the list each send may overshoot by.
        let largest = lists.map { var w = JSONWriter(); w.value($0); return w.bytes.count }.max() ?? 0
        #expect(bytes <= Int(4_096 * now) + 2 * largest + 4_096, "\(lists.count) lists, \(bytes) bytes")
        #expect(lists.count < 60)
    }

    @Test("[P11] A joiner's welcome is its list: it is sent none for its own join, nor after a resync's welcome")
    func welcomeIsTheList() throws {
        let room = try makeRoom()
        let a = Peer(id: 1)
        room.join(a)
        room.tick(now: 0)
        try a.drain()
        let b = Peer(id: 2)
        room.join(b, now: 0.001)
        room.tick(now: 0.016)
        #expect(try b.drain().map { $0["type"] } == [.string("welcome")])
        #expect(listed(try a.drain().first) == [1, 2])
        room.join(Peer(id: 3), now: 0.02)
        room.resync(2)
        room.tick(now: 0.1)
        let afterResync = try b.drain()
        #expect(afterResync.map { $0["type"] } == [.string("welcome")])
        #expect(listed(afterResync.first) == [1, 2, 3])
        #expect(listed(try a.drain().first) == [1, 2, 3])
    }

    @Test("[P11] A lease change still reaches a 1.1 client at once, without a list, with every lease in shape-id order")
    func leasesAtOnce() throws {
        let room = try makeRoom()
        let a = Peer(id: 1), b = Peer(id: 2)
        room.join(a); room.join(b)
        room.receive(op("o1", "snap", ##""x":500,"y":500,"shapeId":"s""##), from: 1, now: 0)
        room.receive(op("o2", "snap", ##""x":200,"y":200,"shapeId":"r""##), from: 2, now: 0)
        room.tick(now: 0)
        try a.drain(); try b.drain()
        room.receive(op("m1", "move", ##""shape":"s","phase":"begin""##), from: 1, now: 0.001)
        let lease = try #require(try b.drain().first)
        #expect(lease["event"] == .string("lease") && lease["sessions"] == nil && lease["leases"] == .object(["s": .number(1)]))
        // A lease taken after, on a shape whose id sorts first, is listed first.
        room.receive(op("m2", "move", ##""shape":"r","phase":"begin""##), from: 2, now: 0.002)
        var last: [UInt8] = []
        while let frame = a.outbox.take(now: 0.002) { last = Array(frame.bytes) }
        #expect(String(decoding: last, as: UTF8.self).contains(#""leases":{"r":2,"s":1}"#))
    }
}

private extension JSONValue {
    /// A batch's messages, or the message alone.
    var arrayOrSelf: [JSONValue] { if case .array(let items) = self { items } else { [self] } }
}
