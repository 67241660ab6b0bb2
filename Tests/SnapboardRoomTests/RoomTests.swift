import Testing

@testable import SnapboardCore
@testable import SnapboardProtocol
@testable import SnapboardRoom

/// A session's view of a room: drains its outbox into decoded messages, as the transport would.
final class Peer {
    let id: Int
    let outbox = Outbox()
    var received: [JSONValue] = []
    var frames = 0

    init(id: Int) { self.id = id }

    /// Takes everything pending, as the transport would (a frame per writable callback), and returns the
    /// messages it held.
    @discardableResult
    func drain(now: Double = 0) throws -> [JSONValue] {
        var messages: [JSONValue] = []
        while let message = outbox.take(now: now) {
            frames += 1
            let value = try JSONValue.parse(message.bytes)
            if case .array(let items) = value { messages += items } else { messages.append(value) }
        }
        received += messages
        return messages
    }

    func of(_ type: String) -> [JSONValue] { received.filter { $0["type"] == .string(type) } }
}

func op(_ id: String, _ kind: String, _ fields: String = "") -> ClientMessage {
    let text = #"{"type":"op","id":"\#(id)","op":"\#(kind)""# + (fields.isEmpty ? "" : "," + fields) + "}"
    do { return try ClientMessage.decode(Array(text.utf8)) } catch { fatalError("bad test op \(text): \(error)") }
}

func makeRoom(_ configure: (inout RoomConfig) -> Void = { _ in }) throws -> Room {
    var config = RoomConfig()
    configure(&config)
    var canvasConfig = CanvasConfig()
    canvasConfig.snapping.grid = false
    return Room(canvas: try Canvas(id: "room", config: canvasConfig), config: config, now: 0)
}

extension Room {
    /// A join; with `since`, from the run `epoch`, by default the room's oldest one (the client has been
    /// around since the first load).
    func join(_ peer: Peer, client: String? = nil, user: String? = nil, since: Int? = nil, epoch: String? = nil, canEdit: Bool = true,
              revision: Int = 1, now: Double = 0) {
        var address = CanvasAddress(canvas: "room", client: client, since: since, epoch: since == nil ? nil : epoch ?? epochs[0].id,
                                    name: "p\(peer.id)", zoom: 1)
        address.revision = revision
        join(session: peer.id, address: address, user: user, canEdit: canEdit, outbox: peer.outbox, now: now)
    }
}

@Suite("Room: ordering, deltas, leases, exactly-once, resume, backpressure")
struct RoomTests {
    @Test("A join gets a welcome with the canvas; the others hear of it")
    func welcome() throws {
        let room = try makeRoom()
        let a = Peer(id: 1), b = Peer(id: 2)
        room.join(a)
        room.receive(op("o1", "snap", ##""x":100,"y":100"##), from: 1, now: 0)
        room.join(b)
        room.tick(now: 0)
        try a.drain(); try b.drain()
        let w = try #require(b.of("welcome").first)
        #expect(w["seq"] == .number(1) && w["session"] == .number(2) && w["protocol"] == .number(1))
        guard case .array(let shapes)? = w["shapes"] else { Issue.record("no shapes"); return }
        #expect(shapes.count == 1)
        #expect(a.of("presence").last?["event"] == .string("join"))
    }

    @Test("[P11] A 1.2 client hears of joins and leaves as changes; a 1.1 client gets the list at the tick, serialised once for all")
    func presenceChanges() throws {
        let room = try makeRoom()
        let new1 = Peer(id: 1), new2 = Peer(id: 2), old1 = Peer(id: 3), old2 = Peer(id: 4)
        room.join(new1, revision: 2); room.join(new2, revision: 2); room.join(old1); room.join(old2)
        room.tick(now: 0)
        for p in [new1, new2, old1, old2] { try p.drain() }
        room.join(Peer(id: 5), revision: 2)
        room.tick(now: 0.016)
        #expect(new1.outbox.ordered[0].frame === new2.outbox.ordered[0].frame)
        #expect(old1.outbox.ordered[0].frame === old2.outbox.ordered[0].frame)
        #expect(new1.outbox.ordered[0].frame !== old1.outbox.ordered[0].frame)
        let change = try #require(try new1.drain().first)
        #expect(change["event"] == .string("join") && change["session"] == .number(5) && change["name"] == .string("p5"))
        #expect(change["sessions"] == nil && change["leases"] == .object([:]))
        let listed = try #require(try old1.drain().first)
        guard case .array(let list)? = listed["sessions"] else { Issue.record("no list for a 1.1 client"); return }
        #expect(list.count == 5)
        try new2.drain()
        room.leave(session: 5, now: 0)
        let left = try #require(try new2.drain().first)
        #expect(left["event"] == .string("leave") && left["session"] == .number(5) && left["sessions"] == nil)
    }

    @Test("[P3] Joiners share one serialisation of the committed canvas; shapes under a gesture follow as a live delta")
    func welcomeSerialisedOnce() throws {
        let room = try makeRoom()
        let a = Peer(id: 1)
        room.join(a)
        room.receive(op("o1", "snap", ##""x":500,"y":500,"shapeId":"s""##), from: 1, now: 0)
        room.receive(op("o2", "snap", ##""x":100,"y":100,"shapeId":"t""##), from: 1, now: 0)
        room.receive(op("m1", "move", ##""shape":"s","phase":"begin""##), from: 1, now: 0)
        room.receive(op("m2", "move", ##""shape":"s","phase":"update","dx":200,"dy":0"##), from: 1, now: 0)
        let b = Peer(id: 2), c = Peer(id: 3)
        room.join(b)
        let cached = try #require(room.welcomeShapes)
        #expect(cached.seq == 2)
        room.join(c)
        #expect(room.welcomeShapes?.json === cached.json)
        // b's and c's queued welcomes hold the same canvas bytes, not a copy each.
        guard case .parts(let partsB)? = b.outbox.ordered.first, case .parts(let partsC)? = c.outbox.ordered.first else {
            Issue.record("welcomes are not queued in parts"); return
        }
        #expect(partsB.count == 3 && partsB[1] === partsC[1] && partsB[0] !== partsC[0])
        let forB = try b.drain()
        let welcome = try #require(forB.first), live = try #require(forB.dropFirst().first)
        guard case .array(let shapes)? = welcome["shapes"] else { Issue.record("no shapes"); return }
        #expect(shapes.count == 2 && shapes.first { $0["id"] == .string("s") }?["x"] == .number(512))
        #expect(live["type"] == .string("delta") && live["live"] == .bool(true) && live["by"] == .number(0))
        guard case .array(let dragged)? = live["shapes"] else { Issue.record("no live shapes"); return }
        #expect(dragged.count == 1 && dragged[0]["id"] == .string("s") && dragged[0]["x"] == .number(712))
        room.receive(op("m3", "move", ##""shape":"s","phase":"end","dx":200,"dy":0"##), from: 1, now: 0)
        room.join(Peer(id: 4))
        #expect(room.welcomeShapes?.seq == 3 && room.welcomeShapes?.json !== cached.json)
    }

    @Test("A committed op reaches everyone as the same delta, then the sender gets its ack")
    func commitBroadcast() throws {
        let room = try makeRoom()
        let a = Peer(id: 1), b = Peer(id: 2)
        room.join(a); room.join(b)
        try a.drain(); try b.drain()
        room.receive(op("o1", "snap", ##""x":100,"y":100,"shapeId":"s""##), from: 1, now: 0)
        let forA = try a.drain(), forB = try b.drain()
        #expect(forA.map { $0["type"] } == [.string("delta"), .string("ack")])
        #expect(forA[0] == forB[0])
        #expect(forA[1]["seq"] == .number(1) && forA[0]["seq"] == .number(1) && forA[0]["ops"] == .array([.string("o1")]))
    }

    @Test("A delta is serialised once: every recipient's queue holds the same bytes, headroom included")
    func serialisedOnce() throws {
        let room = try makeRoom()
        let a = Peer(id: 1), b = Peer(id: 2), c = Peer(id: 3)
        room.join(a); room.join(b); room.join(c)
        try a.drain(); try b.drain(); try c.drain()
        room.receive(op("o1", "snap", ##""x":100,"y":100"##), from: 1, now: 0)
        #expect(b.outbox.ordered[0].frame === c.outbox.ordered[0].frame)
        #expect(b.outbox.ordered[0].frame!.withHeadroom.prefix(Frame.headroom).allSatisfy { $0 == 0 })
    }

    @Test("Live updates wait for the tick and coalesce: one delta per client per tick, latest state, every op id")
    func liveCoalescing() throws {
        let room = try makeRoom()
        let a = Peer(id: 1), b = Peer(id: 2)
        room.join(a); room.join(b)
        room.receive(op("o1", "snap", ##""x":500,"y":500,"shapeId":"s""##), from: 1, now: 0)
        try a.drain(); try b.drain()
        room.receive(op("m1", "move", ##""shape":"s","phase":"begin""##), from: 1, now: 0)
        room.receive(op("m2", "move", ##""shape":"s","phase":"update","dx":100,"dy":0"##), from: 1, now: 0.001)
        room.receive(op("m3", "move", ##""shape":"s","phase":"update","dx":200,"dy":0"##), from: 1, now: 0.002)
        #expect(try b.drain().allSatisfy { $0["type"] == .string("presence") })
        room.tick(now: 0.016)
        let live = try #require(try b.drain().first)
        #expect(live["live"] == .bool(true) && live["seq"] == .number(1))
        #expect(live["ops"] == .array([.string("m1"), .string("m2"), .string("m3")]))
        guard case .array(let shapes)? = live["shapes"] else { Issue.record("no shapes"); return }
        #expect(shapes.count == 1 && shapes[0]["x"] == .number(712))
        room.tick(now: 0.032)
        #expect(try b.drain().isEmpty)
    }

    @Test("[P8] A 1.4 session gets live deltas as placements, an older one whole shapes; each form is serialised once a tick")
    func compactLiveDeltas() throws {
        let room = try makeRoom()
        let a = Peer(id: 1), new1 = Peer(id: 2), new2 = Peer(id: 3), old = Peer(id: 4)
        room.join(a, revision: 4); room.join(new1, revision: 4); room.join(new2, revision: 4); room.join(old, revision: 3)
        room.receive(op("o1", "snap", ##""x":500,"y":500,"shapeId":"s""##), from: 1, now: 0)
        for p in [a, new1, new2, old] { try p.drain() }
        room.receive(op("m1", "move", ##""shape":"s","phase":"begin""##), from: 1, now: 0)
        room.receive(op("m2", "move", ##""shape":"s","phase":"update","dx":100,"dy":0"##), from: 1, now: 0.001)
        for p in [a, new1, new2, old] { try p.drain() }
        room.tick(now: 0.016)
        #expect(new1.outbox.live === new2.outbox.live && new1.outbox.live !== old.outbox.live)
        let compact = try #require(try new1.drain().first), whole = try #require(try old.drain().first)
        let shape = try #require(room.canvas.shape("s"))
        #expect(compact["placed"] == .array([.array([.string("s"), .number(shape.center.x), .number(shape.center.y), .number(shape.size.width),
                                                     .number(shape.size.height), .number(shape.scale), .number(shape.rotation), .number(Double(shape.z))])]))
        #expect(compact["shapes"] == nil && compact["ops"] == .array([.string("m1"), .string("m2")]) && compact["live"] == .bool(true))
        guard case .array(let shapes)? = whole["shapes"] else { Issue.record("no shapes"); return }
        #expect(shapes.count == 1 && shapes[0]["x"] == .number(shape.center.x) && whole["placed"] == nil)
        // A committed delta is whole for everyone: it may add, remove or restyle shapes.
        room.receive(op("m3", "move", ##""shape":"s","phase":"end","dx":100,"dy":0"##), from: 1, now: 0.02)
        let committed = try #require(try new1.drain().first { $0["live"] == .bool(false) })
        #expect(committed["shapes"] != nil && committed["placed"] == nil)
    }

    @Test("Haptics go only in the copy for the session that caused them; guides go to everyone and end with the gesture")
    func hapticsAndGuides() throws {
        let room = try makeRoom()
        let a = Peer(id: 1), b = Peer(id: 2)
        room.join(a); room.join(b)
        room.receive(op("o1", "snap", ##""x":300,"y":300,"shapeId":"t","shape":{"kind":"roundedRect"}"##), from: 1, now: 0)
        room.receive(op("o2", "snap", ##""x":700,"y":300,"shapeId":"u","shape":{"kind":"roundedRect"}"##), from: 1, now: 0)
        room.receive(op("m1", "move", ##""shape":"u","phase":"begin""##), from: 2, now: 0)
        room.receive(op("m2", "move", ##""shape":"u","phase":"update","dx":-277,"dy":40"##), from: 2, now: 0)  // 3 from t's right edge
        room.tick(now: 0.016)
        try a.drain(); try b.drain()
        let liveA = try #require(a.of("delta").last), liveB = try #require(b.of("delta").last)
        guard case .array(let eventsA)? = liveA["events"], case .array(let eventsB)? = liveB["events"] else { Issue.record("no events"); return }
        #expect(eventsA.map { $0["type"] } == [.string("guide")])
        #expect(eventsB.map { $0["type"] } == [.string("guide"), .string("haptic")])
        room.receive(op("m3", "move", ##""shape":"u","phase":"end","dx":-277,"dy":40"##), from: 2, now: 0.02)
        try a.drain()
        let end = try #require(a.of("delta").last)
        #expect(end["live"] == .bool(false) && end["events"] == .array([]))
    }

    @Test("Another session's gesture on a leased shape is refused; an idle lease expires and commits")
    func leases() throws {
        let room = try makeRoom()
        let a = Peer(id: 1), b = Peer(id: 2)
        room.join(a); room.join(b)
        room.receive(op("o1", "snap", ##""x":500,"y":500,"shapeId":"s""##), from: 1, now: 0)
        room.receive(op("m1", "move", ##""shape":"s","phase":"begin""##), from: 1, now: 1)
        room.receive(op("m2", "move", ##""shape":"s","phase":"update","dx":33,"dy":0"##), from: 1, now: 1)
        room.receive(op("x1", "rotate", ##""shape":"s","phase":"begin""##), from: 2, now: 1)
        try b.drain()
        #expect(b.of("reject").last?["code"] == .string("shape_locked"))
        room.tick(now: 5.9)
        try b.drain()
        #expect(!b.of("delta").contains { $0["live"] == .bool(false) && $0["seq"] == .number(2) })
        room.tick(now: 6.1)
        try b.drain()
        let commit = try #require(b.of("delta").last)
        #expect(commit["seq"] == .number(2) && commit["live"] == .bool(false) && commit["by"] == .number(1))
        room.receive(op("x2", "rotate", ##""shape":"s","phase":"begin""##), from: 2, now: 6.2)
        try b.drain()
        #expect(b.of("reject").count == 1)
    }

    @Test("A resent op id from the same client gets the original ack and is not applied twice")
    func exactlyOnce() throws {
        let room = try makeRoom()
        let a = Peer(id: 1)
        room.join(a, client: "c1")
        room.receive(op("o1", "snap", ##""x":100,"y":100"##), from: 1, now: 0)
        room.leave(session: 1, now: 0)
        let again = Peer(id: 2)
        room.join(again, client: "c1", since: 1)
        room.receive(op("o1", "snap", ##""x":100,"y":100"##), from: 2, now: 1)
        try again.drain()
        #expect(again.of("ack") == [.object(["type": .string("ack"), "id": .string("o1"), "seq": .number(1)])])
        #expect(room.canvas.seq == 1 && room.canvas.count == 1)
    }

    @Test("Client ids are each user's own: another user's same client and op id is a new op, not a resend")
    func clientIDsAreScopedToUsers() throws {
        let room = try makeRoom()
        let ada = Peer(id: 1), eve = Peer(id: 2)
        room.join(ada, client: "c1", user: "ada")
        room.join(eve, client: "c1", user: "eve")
        room.receive(op("o1", "snap", ##""x":100,"y":100"##), from: 1, now: 0)
        room.receive(op("o1", "snap", ##""x":300,"y":100"##), from: 2, now: 0)
        try ada.drain(); try eve.drain()
        #expect(ada.of("ack").map { $0["seq"] } == [.number(1)])
        #expect(eve.of("ack").map { $0["seq"] } == [.number(2)])
        #expect(room.canvas.seq == 2 && room.canvas.count == 2)
    }

    @Test("A client resuming inside the retained log gets resumed:true and exactly the deltas it missed")
    func resume() throws {
        let room = try makeRoom()
        let a = Peer(id: 1)
        room.join(a)
        for i in 1...5 { room.receive(op("o\(i)", "snap", ##""x":\##(i * 100),"y":100"##), from: 1, now: 0) }
        let b = Peer(id: 2)
        room.join(b, since: 3)
        try b.drain()
        #expect(b.received.first?["resumed"] == .bool(true))
        #expect(b.of("delta").map { $0["seq"] } == [.number(4), .number(5)])
        let c = Peer(id: 3)
        room.join(c, since: 99)
        try c.drain()
        #expect(c.received.first?["resumed"] == .bool(false))
    }

    @Test("A slow reader's live deltas merge into one, it is resynced with a welcome when too far behind, and others are unaffected")
    func slowConsumer() throws {
        let room = try makeRoom { $0.maxQueuedBytes = 6_000 }
        let fast = Peer(id: 1), slow = Peer(id: 2)
        room.join(fast); room.join(slow)
        room.receive(op("o1", "snap", ##""x":500,"y":500,"shapeId":"s""##), from: 1, now: 0)
        room.receive(op("o2", "snap", ##""x":100,"y":500,"shapeId":"t""##), from: 1, now: 0)
        try slow.drain()
        room.receive(op("m1", "move", ##""shape":"s","phase":"begin""##), from: 1, now: 0)
        room.receive(op("n1", "move", ##""shape":"t","phase":"begin""##), from: 1, now: 0)
        for i in 1...50 {
            room.receive(op("m\(i + 1)", "move", ##""shape":"\##(i % 2 == 0 ? "s" : "t")","phase":"update","dx":\##(i),"dy":0"##), from: 1, now: Double(i) / 60)
            room.tick(now: Double(i) / 60)
            try fast.drain()
        }
        // The slow reader never drained: one merged live delta covering both shapes waits for it.
        let pending = try slow.drain()
        #expect(pending.filter { $0["live"] == .bool(true) }.count == 1)
        guard case .array(let shapes)? = pending.last(where: { $0["live"] == .bool(true) })?["shapes"] else { Issue.record("no live"); return }
        #expect(Set(shapes.compactMap { $0["id"] }) == [.string("s"), .string("t")])
        #expect(fast.of("delta").filter { $0["live"] == .bool(true) }.count == 50)
        // Committed deltas pile up past the limit: the slow reader is resynced, the fast one is not.
        for i in 1...30 {
            room.receive(op("z\(i)", "snap", ##""x":\##(i * 10),"y":700"##), from: 1, now: 1)
            try fast.drain()
        }
        let caughtUp = try slow.drain()
        #expect(caughtUp.first?["type"] == .string("welcome"))
        #expect(fast.of("welcome").count == 1)
        #expect(room.metrics.resyncs >= 1)
    }

    @Test("[P17] A resync replaces the deltas queued for a slow reader, but not the acks of its own ops: they follow the welcome")
    func resyncKeepsAnswers() throws {
        let room = try makeRoom { $0.maxQueuedBytes = 6_000 }
        let slow = Peer(id: 1), other = Peer(id: 2)
        room.join(slow); room.join(other)
        try slow.drain()
        for i in 1...40 { room.receive(op("s\(i)", "snap", ##""x":\##(i * 20),"y":300"##), from: 1, now: 1) }
        let got = try slow.drain()
        #expect(got.first?["type"] == .string("welcome"))
        #expect(room.metrics.resyncs >= 1)
        let acked = got.filter { $0["type"] == .string("ack") }.compactMap { $0["id"] }
        #expect(acked == (1...40).map { .string("s\($0)") })
        #expect(got.lastIndex { $0["type"] == .string("welcome") }! < got.firstIndex { $0["type"] == .string("ack") }!
                || got.filter { $0["type"] == .string("welcome") }.count > 1)
    }

    @Test("Viewers are refused with forbidden; floods with rate_limited; repeated junk closes with 1008, oversize with 1009")
    func limits() throws {
        let room = try makeRoom { $0.opsPerSecond = 5; $0.maxErrors = 3 }
        let viewer = Peer(id: 1), editor = Peer(id: 2)
        room.join(viewer, canEdit: false); room.join(editor)
        room.receive(op("v1", "clear"), from: 1, now: 0)
        try viewer.drain()
        #expect(viewer.of("reject").first?["code"] == .string("forbidden"))
        for i in 0..<8 { room.receive(op("e\(i)", "snap", ##""x":10,"y":10"##), from: 2, now: 0) }
        try editor.drain()
        #expect(editor.of("reject").map { $0["code"] } == Array(repeating: .string("rate_limited"), count: 3))
        for _ in 0..<4 { room.receiveInvalid(ProtocolError(.badJSON, "x"), from: 1, now: 1) }
        #expect(viewer.outbox.close?.code == CloseCode.policyViolation)
        room.receiveInvalid(ProtocolError(.tooLarge, "x"), from: 2, now: 1)
        #expect(editor.outbox.close?.code == CloseCode.messageTooBig)
    }

    @Test("A disconnect commits the session's gestures where they were last put")
    func disconnectCommits() throws {
        let room = try makeRoom()
        let a = Peer(id: 1), b = Peer(id: 2)
        room.join(a); room.join(b)
        room.receive(op("o1", "snap", ##""x":500,"y":500,"shapeId":"s""##), from: 1, now: 0)
        room.receive(op("m1", "move", ##""shape":"s","phase":"begin""##), from: 1, now: 0)
        room.receive(op("m2", "move", ##""shape":"s","phase":"update","dx":7,"dy":7"##), from: 1, now: 0)
        room.leave(session: 1, now: 1)
        room.tick(now: 1)
        try b.drain()
        #expect(b.of("delta").last?["seq"] == .number(2))
        #expect(b.of("presence").last?["event"] == .string("leave"))
        #expect(room.canvas.leases.isEmpty && room.emptySince == nil)
    }
}

@Suite("Outbox batches")
struct OutboxBatchTests {
    @Test("A backlog leaves in batches of at most 64 KiB, and what is left stays counted as queued")
    func batchesAreCapped() throws {
        let outbox = Outbox()
        let message = Array("{\"type\":\"pong\",\"pad\":\"\(String(repeating: "x", count: 10_000))\"}".utf8)
        for _ in 0..<20 { outbox.enqueue(message) }
        let total = outbox.queuedBytes
        #expect(total == 20 * message.count)
        let first = try #require(outbox.take(now: 0))
        guard case .array(let items) = try JSONValue.parse(first.bytes) else { Issue.record("not a batch"); return }
        #expect(items.count == Outbox.maxBatchBytes / message.count)
        #expect(outbox.queuedBytes == total - items.count * message.count && outbox.hasPending)
        var taken = items.count
        while let next = outbox.take(now: 0) {
            if case .array(let more) = try JSONValue.parse(next.bytes) { taken += more.count } else { taken += 1 }
        }
        #expect(taken == 20 && outbox.queuedBytes == 0)
        // A message over the cap still goes, alone.
        let big = Array("\"\(String(repeating: "y", count: 70_000))\"".utf8)
        outbox.enqueue(big)
        outbox.enqueue(message)
        #expect(outbox.take(now: 0)?.bytes == big)
        #expect(outbox.take(now: 0)?.bytes == message)
    }

    @Test("/metrics counts each op by its kind, a selection's gesture as the gesture, and lists only the kinds received")
    func opsCountedByKind() throws {
        let room = try makeRoom()
        let ann = Peer(id: 1)
        room.join(ann)
        room.receive(op("o1", "snap", ##""x":100,"y":100,"shapeId":"s""##), from: 1, now: 0)
        room.receive(op("o2", "snap", ##""x":500,"y":500,"shapeId":"t""##), from: 1, now: 0)
        room.receive(op("o3", "move", ##""shape":"s","phase":"begin""##), from: 1, now: 0)
        room.receive(op("o4", "move", ##""shape":"s","phase":"end","dx":40,"dy":0"##), from: 1, now: 0)
        room.receive(op("o5", "move", ##""shapes":["s","t"],"dx":8,"dy":8"##), from: 1, now: 0)
        room.receive(op("o6", "rotate", ##""shape":"t","radians":0.5"##), from: 1, now: 0)
        room.receive(op("o7", "undo"), from: 1, now: 0)
        #expect(room.metrics.ops == ["snap": 2, "move": 3, "rotate": 1, "undo": 1])
    }
}
