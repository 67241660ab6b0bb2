import Testing

@testable import SnapboardCore
@testable import SnapboardProtocol
@testable import SnapboardRoom

@Suite("Room and journal: durable acks, checkpoints, recovery")
struct JournalTests {
    final class Capture {
        var entries: [JournalEntry] = []
    }

    func journaledRoom(checkpointEvery: Int = 1_000) throws -> (Room, Capture) {
        let room = try makeRoom { $0.checkpointEvery = checkpointEvery }
        let capture = Capture()
        room.journal = { capture.entries.append($0) }
        return (room, capture)
    }

    /// A journaled room with a writer (session 1, client "c1") and a watcher (session 2) joined.
    func watchedRoom() throws -> (Room, Capture, Peer) {
        let (room, journal) = try journaledRoom()
        let watcher = Peer(id: 2)
        room.join(Peer(id: 1), client: "c1")
        room.join(watcher)
        return (room, journal, watcher)
    }

    @Test("With a journal the delta goes out at once and the ack only once the seq is durable")
    func ackWaitsForDurable() throws {
        let (room, journal) = try journaledRoom()
        let a = Peer(id: 1), b = Peer(id: 2)
        room.join(a, client: "c1"); room.join(b)
        try a.drain(); try b.drain()
        room.receive(op("o1", "snap", ##""x":100,"y":100"##), from: 1, now: 0)
        #expect(try a.drain().map { $0["type"] } == [.string("delta")])
        #expect(try b.drain().map { $0["type"] } == [.string("delta")])
        #expect(journal.entries.count == 2, "the run, then the commit")
        // A resend before it is durable waits for the same ack; it is not applied again.
        room.receive(op("o1", "snap", ##""x":100,"y":100"##), from: 1, now: 0.001)
        #expect(room.canvas.seq == 1 && journal.entries.count == 2)
        room.durable(through: 1, now: 0.004)
        #expect(try a.drain() == [.object(["type": .string("ack"), "id": .string("o1"), "seq": .number(1)]),
                                  .object(["type": .string("ack"), "id": .string("o1"), "seq": .number(1)])])
        #expect(room.metrics.ackLatency.count == 2)
    }

    /// A room restored as the server restores one after a shutdown or an unload: from the last checkpoint
    /// (taken at the end, so no commit comes after it) and the log the journal kept.
    func restored(from room: Room, _ journal: Capture, configure: (inout RoomConfig) -> Void = { _ in }) throws -> Room {
        room.checkpoint()
        guard case .checkpoint(let snapshot, _)? = journal.entries.last else { throw CancellationError() }
        let history = journal.entries.compactMap { if case .commit(let r) = $0 { r } else { nil } }
        let epochs = journal.entries.compactMap { if case .epoch(_, let e) = $0 { e } else { nil } }
        var config = RoomConfig()
        configure(&config)
        return Room(canvas: try Canvas(snapshot: snapshot), history: history, epochs: epochs, config: config, now: 0)
    }

    static func withoutBy(_ m: JSONValue) -> JSONValue {
        guard case .object(var fields) = m else { return m }
        fields["by"] = nil
        return .object(fields)
    }

    @Test("After a checkpoint at the last commit (a shutdown, an unload) a client still resumes, with the deltas it missed as they were sent")
    func resumeAcrossCheckpoint() throws {
        let (room, journal, watcher) = try watchedRoom()
        room.receive(op("o1", "snap", ##""x":100,"y":100,"shapeId":"A","shape":{"kind":"star","hatch":"hatch"}"##), from: 1, now: 0)
        room.receive(op("o2", "snap", ##""shapeId":"B","x":400,"y":100"##), from: 1, now: 0)
        room.receive(op("o3", "move", ##""shape":"A","dx":30,"dy":5"##), from: 1, now: 0)
        room.receive(op("o4", "scale", ##""shape":"B","factor":2,"radians":0.3"##), from: 1, now: 0)
        room.receive(op("o5", "clear"), from: 1, now: 0)
        room.receive(op("o6", "snap", ##""shapeId":"A","x":500,"y":500"##), from: 1, now: 0)
        room.receive(op("o7", "rotate", ##""shape":"A","radians":1"##), from: 1, now: 0)
        // What someone other than the sender was sent: without the sender's haptics.
        try watcher.drain()
        let sent = watcher.of("delta").map(Self.withoutBy)
        #expect(sent.count == 7)
        let again = try restored(from: room, journal)
        for since in [0, 2, 6] {
            let b = Peer(id: 10 + since)
            again.join(b, since: since)
            try b.drain()
            #expect(b.received.first?["resumed"] == .bool(true), "since=\(since)")
            #expect(b.of("delta").map(Self.withoutBy) == Array(sent[since...]), "since=\(since)")
        }
    }

    @Test("[P28] After a checkpoint at the last commit, a canvas with connectors answers a resume with a snapshot: the rows do not say which connectors followed")
    func noRebuiltWindowWithConnectors() throws {
        let (room, journal, watcher) = try watchedRoom()
        room.receive(op("o1", "snap", ##""shapeId":"A","x":100,"y":100"##), from: 1, now: 0)
        room.receive(op("o2", "snap", ##""shapeId":"B","x":400,"y":100"##), from: 1, now: 0)
        room.receive(op("o3", "connect", ##""shapeId":"C","from":{"shape":"A","anchor":"right"},"to":{"shape":"B","anchor":"left"}"##), from: 1, now: 0)
        room.receive(op("o4", "move", ##""shape":"A","dx":0,"dy":200,"snap":false"##), from: 1, now: 0)
        try watcher.drain()
        let moved = try #require(watcher.of("delta").last)
        #expect(moved["shapes"]?[1]?["id"] == .string("C"))
        let again = try restored(from: room, journal)
        let b = Peer(id: 10)
        again.join(b, since: 2)
        try b.drain()
        #expect(b.received.first?["resumed"] == .bool(false) && b.of("delta").isEmpty)
        guard case .array(let shapes)? = b.received.first?["shapes"] else { throw CancellationError() }
        #expect(shapes.first { $0["id"] == .string("C") } == moved["shapes"]?[1])
    }

    @Test("A rebuilt window starts after a placement whose shape it cannot tell: such a resume gets a snapshot instead")
    func rebuiltWindowNeverGuesses() throws {
        let (room, journal) = try journaledRoom()
        let a = Peer(id: 1)
        room.join(a, client: "c1")
        room.receive(op("o1", "snap", ##""shapeId":"A","x":100,"y":100"##), from: 1, now: 0)
        room.receive(op("o2", "snap", ##""shapeId":"B","x":400,"y":100"##), from: 1, now: 0)
        room.receive(op("o3", "move", ##""shape":"A","dx":30,"dy":5"##), from: 1, now: 0)
        room.receive(op("o4", "clear"), from: 1, now: 0)
        room.receive(op("o5", "snap", ##""shapeId":"C","x":500,"y":500"##), from: 1, now: 0)
        // A window of 3 holds seqs 3…5, but seq 3 places A, created before the window and cleared since.
        let again = try restored(from: room, journal) { $0.retainedDeltas = 3 }
        let b = Peer(id: 2), c = Peer(id: 3)
        again.join(b, since: 3)
        again.join(c, since: 2)
        try b.drain(); try c.drain()
        #expect(b.received.first?["resumed"] == .bool(true))
        #expect(b.of("delta").map { $0["seq"] } == [.number(4), .number(5)])
        #expect(c.received.first?["resumed"] == .bool(false))
    }

    @Test("[P16] After a crash lost a commit clients saw, only a base both runs share resumes; the rest get a snapshot")
    func resumeNeverOntoALostBase() throws {
        let (room, journal, _) = try watchedRoom()
        for i in 1...4 { room.receive(op("o\(i)", "snap", ##""x":\##(i * 100),"y":100"##), from: 1, now: 0) }
        let firstRun = room.epoch
        #expect(firstRun.start == 0)
        // The run is recorded once, before its first commit.
        #expect(journal.entries.filter { if case .epoch = $0 { true } else { false } }.count == 1)
        guard case .epoch(_, let recorded)? = journal.entries.first else { throw CancellationError() }
        #expect(recorded == firstRun)
        // The crash: seq 4 went out to everyone but never reached the disk.
        let durable = journal.entries.compactMap { if case .commit(let r) = $0, r.seq <= 3 { r } else { nil } }
        let again = Room(canvas: try Canvas(id: "room", config: room.canvas.config), history: durable,
                         epochs: [recorded], now: 1)
        #expect(again.canvas.seq == 3 && again.epoch.start == 3 && again.epoch.id != firstRun.id)
        let c = Peer(id: 3)
        again.join(c, client: "c2")
        again.receive(op("p1", "snap", ##""x":700,"y":700"##), from: 3, now: 1)  // a different seq 4
        again.receive(op("p2", "snap", ##""x":800,"y":700"##), from: 3, now: 1)
        let saw4 = Peer(id: 4), saw3 = Peer(id: 5), noRun = Peer(id: 6), secondRun = Peer(id: 7), unknown = Peer(id: 8)
        again.join(saw4, since: 4, epoch: firstRun.id)
        again.join(saw3, since: 3, epoch: firstRun.id)
        again.join(session: noRun.id, address: CanvasAddress(canvas: "room", since: 3, zoom: 1), outbox: noRun.outbox, now: 1)
        again.join(unknown, since: 3, epoch: "0123456789abcdef")
        again.join(secondRun, since: 4, epoch: again.epoch.id)
        for p in [saw4, saw3, noRun, secondRun, unknown] { try p.drain() }
        #expect(saw4.received.first?["resumed"] == .bool(false), "its seq 4 never existed for this run")
        guard case .array(let shapes)? = saw4.received.first?["shapes"] else { throw CancellationError() }
        #expect(shapes.count == 5)
        #expect(saw3.received.first?["resumed"] == .bool(true))
        #expect(saw3.of("delta").map { $0["seq"] } == [.number(4), .number(5)])
        #expect(secondRun.received.first?["resumed"] == .bool(true))
        #expect(secondRun.of("delta").map { $0["seq"] } == [.number(5)])
        #expect(noRun.received.first?["resumed"] == .bool(false), "a base without a run cannot be vouched for")
        #expect(unknown.received.first?["resumed"] == .bool(false))
        #expect(saw3.received.first?["epoch"] == .string(again.epoch.id))
    }

    @Test("Commits the server makes itself are journaled too, and a checkpoint comes every N commits")
    func everythingIsJournaled() throws {
        let (room, journal) = try journaledRoom(checkpointEvery: 3)
        let a = Peer(id: 1)
        room.join(a)
        room.receive(op("o1", "snap", ##""x":500,"y":500,"shapeId":"s""##), from: 1, now: 0)
        room.receive(op("o2", "move", ##""shape":"s","phase":"begin""##), from: 1, now: 0)
        room.receive(op("o3", "move", ##""shape":"s","phase":"update","dx":40,"dy":0"##), from: 1, now: 0)
        room.leave(session: 1, now: 1)  // the gesture commits without an op id
        room.receive(op("x", "clear"), from: 1, now: 1)  // gone: ignored
        let b = Peer(id: 2)
        room.join(b)
        room.receive(op("o4", "clear"), from: 2, now: 2)
        let commits = journal.entries.compactMap { if case .commit(let r) = $0 { r } else { nil } }
        #expect(commits.map(\.seq) == [1, 2, 3])
        #expect(commits.map(\.opID) == ["o1", nil, "o4"])
        #expect(journal.entries.filter { if case .checkpoint = $0 { true } else { false } }.count == 1)
    }

    @Test("A checkpoint prunes the log before the resume window, and nothing with keepsWholeLog", arguments: [false, true])
    func checkpointPrunePoint(keepsWholeLog: Bool) throws {
        let room = try makeRoom {
            $0.checkpointEvery = 4
            $0.retainedDeltas = 3
            $0.keepsWholeLog = keepsWholeLog
        }
        let journal = Capture()
        room.journal = { journal.entries.append($0) }
        room.join(Peer(id: 1), client: "c1")
        for n in 0..<4 { room.receive(op("o\(n)", "snap", ##""x":\##(100 + 100 * n),"y":100"##), from: 1, now: Double(n)) }
        let prunes = journal.entries.compactMap { if case .checkpoint(let s, let before) = $0 { (s.seq, before) } else { nil } }
        #expect(prunes.map(\.0) == [4])
        #expect(prunes.map(\.1) == [keepsWholeLog ? 0 : 2], "seq 4 keeps 3 deltas: 2, 3 and 4")
    }

    @Test("Property: replaying the log from one checkpoint gives exactly the next checkpoint")
    func replayMatchesNextCheckpoint() throws {
        for seed in UInt64(1)...20 {
            let (room, journal) = try journaledRoom(checkpointEvery: 7)
            let peers = (1...3).map { Peer(id: $0) }
            for p in peers { room.join(p, client: "c\(p.id)") }
            var rng = SeededGenerator(state: seed)
            for n in 0..<200 {
                let who = Int(rng.next() % 3) + 1
                let ids = room.canvas.shapes.map(\.id)
                let shape = ids.isEmpty ? "none" : ids[Int(rng.next() % UInt64(ids.count))]
                let d = Int(rng.next() % 80) - 40
                let message: ClientMessage = switch rng.next() % 10 {
                case 0...3: op("n\(n)", "snap", ##""x":\##(rng.next() % 1000),"y":\##(rng.next() % 700)"##)
                case 4...6: op("n\(n)", "move", ##""shape":"\##(shape)","dx":\##(d),"dy":\##(-d)"##)
                case 7: op("n\(n)", "rotate", ##""shape":"\##(shape)","phase":"begin""##)
                case 8: op("n\(n)", "rotate", ##""shape":"\##(shape)","phase":"end","radians":\##(Double(d) / 20)"##)
                default: rng.next() % 5 == 0 ? op("n\(n)", "clear") : op("n\(n)", "scale", ##""shape":"\##(shape)","factor":1.1"##)
                }
                room.receive(message, from: who, now: Double(n) / 100)
                if n % 50 == 49 { room.leave(session: who, now: Double(n) / 100); room.join(peers[who - 1], client: "c\(who)") }
            }
            room.checkpoint()
            var last: CanvasSnapshot?
            var log: [CommitRecord] = []
            var checked = 0
            for entry in journal.entries {
                switch entry {
                case .commit(let r): log.append(r)
                case .checkpoint(let snapshot, _):
                    #expect(snapshot.seq == log.last?.seq ?? 0, "seed \(seed): the checkpoint at \(snapshot.seq) came before its commits")
                    if let last {
                        var canvas = try Canvas(snapshot: last)
                        for r in log where r.seq > last.seq && r.seq <= snapshot.seq { canvas.replay(r.op) }
                        let matches = canvas.committedSnapshot == snapshot
                        #expect(matches, "seed \(seed) at seq \(snapshot.seq)")
                        checked += 1
                    }
                    last = snapshot
                case .epoch, .answered: break
                }
            }
            #expect(checked > 5, "seed \(seed)")
            // And a room rebuilt from the first checkpoint and the whole log is the live room's committed state.
            let first = journal.entries.compactMap { if case .checkpoint(let s, _) = $0 { s } else { nil } }.first!
            let rebuilt = Room(canvas: try Canvas(snapshot: first), history: log, now: 0)
            #expect(rebuilt.canvas.committedSnapshot == room.canvas.committedSnapshot, "seed \(seed)")
        }
    }
}
