import SnapboardCore
import SnapboardProtocol
import SnapboardRoom

/// One fuzzing input run through what the server does with a client's messages: decoding (the gesture
/// scanner, then the strict parser) and a room applying them, with two sessions taking turns, the tick
/// and durability in between. Each line of the input is one message.
///
/// What must hold for any input, or the harness traps (a finding):
/// - the fast decoder never disagrees with the strict parser on an input it accepts;
/// - every frame the room sends is valid JSON;
/// - replaying the room's journaled commits on the starting canvas gives exactly its committed canvas
///   (the domain is deterministic, and what is journaled is enough to recover it);
/// - the committed canvas loads back from its own snapshot.
public enum FuzzHarness {
    /// Runs one input. Pure: no I/O, no clock, no randomness beyond the canvas's seeded colours. The first
    /// byte picks the kind: 1 an import body (`runImport`), 2 a stored canvas's rows (`runStored`), 3 client
    /// messages on a canvas with a 4 × 3 layout grid (one shape a cell, so it fills up), 4 client messages on
    /// an unbounded canvas, anything else client messages on the default canvas.
    public static func run(_ input: UnsafeRawBufferPointer) {
        switch input.first {
        case 1?: return runImport(Array(input)[1...])
        case 2?: return runStored(Array(input)[1...])
        case 3?: return runMessages(UnsafeRawBufferPointer(rebasing: input[1...])) { $0.layout = .flexible(rows: 3, columns: 4) }
        case 4?: return runMessages(UnsafeRawBufferPointer(rebasing: input[1...])) { $0.bounded = false }
        default: return runMessages(input)
        }
    }

    /// Client messages, one a line, from two sessions taking turns, on the default canvas as `configure` changes it.
    static func runMessages(_ input: UnsafeRawBufferPointer, configure: (inout CanvasConfig) -> Void = { _ in }) {
        var config = CanvasConfig()
        config.maxShapes = 200
        configure(&config)
        guard let start = try? Canvas(id: "fuzz", config: config) else { fatalError("the default canvas must load") }
        var roomConfig = RoomConfig()
        roomConfig.opsPerSecond = 1_000_000
        let room = Room(canvas: start, epoch: "0000000000000000", config: roomConfig, now: 0)
        var journal: [CommitRecord] = []
        var answered: [AnsweredOp] = []
        room.journal = { entry in
            switch entry {
            case .commit(let record): journal.append(record)
            case .answered(let op): answered.append(op)
            case .checkpoint, .epoch: break
            }
        }
        /// What the journal would report after a write: the commits durable, then the stored answers.
        func written(_ now: Double) {
            room.durable(through: room.canvas.seq, now: now)
            room.answersDurable(answered, now: now)
            answered.removeAll()
        }
        let outboxes = [Outbox(), Outbox()]
        for (i, outbox) in outboxes.enumerated() {
            guard case .canvas(let address) = CanvasAddress.route(path: "/v1/canvases/fuzz", query: "client=c\(i)&name=p\(i)&revision=2")
            else { fatalError("the fuzz canvas's address must parse") }
            room.join(session: i + 1, address: address, outbox: outbox, now: 0)
        }
        var now = 0.0
        for (n, line) in input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).prefix(64).enumerated() {
            now += 0.004
            let bytes = Array(line)
            checkDecoders(bytes)
            let session = n % 2 + 1
            do {
                room.receive(try ClientMessage.decode(bytes), from: session, now: now)
            } catch {
                room.receiveInvalid(error, from: session, now: now)
            }
            if n % 4 == 3 {
                room.tick(now: now)
                written(now)
            }
            for outbox in outboxes { drain(outbox, now: now) }
        }
        room.commitAllGestures(now: now + 10)
        room.tick(now: now + 10)
        written(now + 10)
        for outbox in outboxes { drain(outbox, now: now + 10) }

        var replayed = start
        replayed.replay(contentsOf: journal.sorted { $0.seq < $1.seq }.map(\.op))
        let committed = room.canvas.committedSnapshot
        precondition(replayed.committedSnapshot == committed, "replaying the journal must give the committed canvas")
        precondition((try? Canvas(snapshot: committed)) != nil, "a committed canvas must load from its snapshot")
    }

    /// `decode` reads the hot ops straight from the bytes (the gesture scanner) before it falls back to the
    /// strict parser; whatever it accepts, the strict parser must read the same.
    static func checkDecoders(_ bytes: [UInt8]) {
        guard let fast = try? ClientMessage.decode(bytes) else { return }
        precondition((try? ClientMessage.decodeStrictly(bytes)) == fast, "the gesture scanner and the strict parser disagree")
    }

    static func drain(_ outbox: Outbox, now: Double) {
        while let message = outbox.take(now: now) {
            precondition((try? JSONValue.parse(message.bytes)) != nil, "the room sent a message that is not JSON")
        }
    }
}
