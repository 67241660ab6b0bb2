import DequeModule
import SnapboardCore
import SnapboardProtocol

/// One canvas and the sessions on it: orders operations, applies them, acks, broadcasts deltas,
/// coalesces live updates per tick, expires leases and resumes reconnecting clients.
///
/// The room sees sessions only through their `Outbox`, never a socket, and takes time as a parameter,
/// so it is tested without a network or a clock. Not thread-safe: one thread (the service thread) owns it.
///
/// With a `journal`, an ack means durable: every commit is handed to the journal in seq order, deltas go
/// out at once, and acks wait for `durable(through:now:)`. Without one, acks go out at once.
public final class Room {
    /// One connected session. A class: the room reads and updates it on every op, and a struct this size
    /// would be copied (and every reference in it retained) at each read.
    final class Session {
        var info: SessionInfo
        let outbox: Outbox
        var participant: Participant
        let canEdit: Bool
        /// Joins and leaves reach it as changes, without the session list (P11).
        let presenceChanges: Bool
        /// Live deltas reach it as placements only (P8).
        var compactLive: Bool
        /// The `PresenceLists.generation` of the session list it holds (a 1.1 client's, from its welcome
        /// or the last list it was sent).
        var listedGeneration = 0
        /// The key of exactly-once bookkeeping: the client id, or the session when it gave none.
        let clientKey: String
        var ops: TokenBucket
        var cursors: TokenBucket
        /// Pings and refused ops answered within the session's budget; beyond it, each counts as an error.
        var pings: TokenBucket
        var rejects: TokenBucket
        var cursorWarned = false
        var errorTimes: [Double] = []
        var resyncTimes: [Double] = []
        /// The style this session last set by a `style` op or a snap (1.7): its snaps take what they leave out.
        var lastStyle = StylePatch()
        var id: Int { info.session }

        init(info: SessionInfo, outbox: Outbox, participant: Participant, canEdit: Bool, presenceChanges: Bool, compactLive: Bool,
             clientKey: String, ops: TokenBucket, cursors: TokenBucket, pings: TokenBucket, rejects: TokenBucket) {
            self.info = info
            self.outbox = outbox
            self.participant = participant
            self.canEdit = canEdit
            self.presenceChanges = presenceChanges
            self.compactLive = compactLive
            self.clientKey = clientKey
            self.ops = ops
            self.cursors = cursors
            self.pings = pings
            self.rejects = rejects
        }
    }

    public internal(set) var canvas: Canvas
    public let config: RoomConfig
    public let metrics: RoomMetrics
    var sessions: [Int: Session] = [:]
    /// Sessions in join order, for deterministic broadcasts.
    var order: [Session] = []
    /// The session list as 1.1 clients have been sent it (`Room+Presence.swift`).
    var presenceLists = PresenceLists()

    /// Committed deltas for resuming clients, oldest first: `retained[i]` has seq `firstRetainedSeq + i`.
    var retained: [RetainedDelta] = []
    /// The committed canvas as a welcome's `shapes`, serialised once for every joiner until the next commit,
    /// and shared by their queued welcomes: run and seq name a committed state exactly.
    var welcomeShapes: (epoch: String, seq: Int, json: Frame)?
    var firstRetainedSeq = 1
    /// Answered op ids per client: op id → its seq, and whether it changed nothing.
    var acked: [String: [String: AckedOp]] = [:]
    /// Each client's remembered op ids, oldest first: once full, every new one drops the oldest.
    var ackOrder: [String: Deque<String>] = [:]
    /// The shapes whose leases gestures hold, by id: when an op on each was last seen, and the guides and
    /// gaps (never haptics) a gesture's lead shape shows. One entry per shape, so a drag's step looks its
    /// shape up once.
    var held: [ShapeID: HeldShape] = [:]
    /// Live changes since the last tick.
    var tickShapes: [ShapeID] = []
    var tickShapeSet: Set<ShapeID> = []
    /// The op ids of the tick's live changes, with the shape each changed: a commit of that shape in the
    /// same tick supersedes them (P8).
    var tickOps: [(id: String, shape: ShapeID)] = []
    var tickBy = 0
    var tickHaptics: [Int: [Haptic]] = [:]
    /// Ops that changed nothing since the last tick, answered after the tick's live delta that puts their
    /// shapes back, as a commit's ack follows its delta (P6): the session, the op id and the seq it names.
    var tickUnchanged: [(session: Int, opID: String, seq: Int, receivedAt: Double)] = []
    /// Pointer positions since the last tick, latest per session (nil: left the canvas), in arrival order.
    var tickCursors: [Int: Point?] = [:]
    var tickCursorOrder: [Int] = []
    /// When the room last had no session, for unloading.
    public internal(set) var emptySince: Double?
    /// Where commits and checkpoints go to become durable, in order; nil acks at once.
    public var journal: ((JournalEntry) -> Void)?
    /// Told when a session falls too far behind: `closed` when it was closed with 4000, else it was sent a
    /// fresh welcome; `queued` is the bytes it had waiting (for the server's log).
    public var onBackpressure: ((_ session: Int, _ closed: Bool, _ queued: Int) -> Void)?
    /// A budget beyond the session's own, asked for each op that passed it: nil lets the op through, a
    /// text refuses it with `rate_limited` (the server's per-address rate).
    public var admitOp: ((_ session: Int, _ cost: Double, _ now: Double) -> String?)?
    var owedAcks: [OwedAck] = []
    /// The seq through which the journal has made every commit durable: an ack of an op that changed
    /// nothing (P6 `unchanged`) waits for the seq it names as any ack does, and goes at once when it is.
    var durableSeq = 0
    /// Each client's undo and redo stacks, by client key.
    var histories: [String: History] = [:]
    /// Op ids committed but not yet durable, per client: a resend waits for the same ack instead of applying again.
    var inFlight: [String: [String: Int]] = [:]
    var commitsSinceCheckpoint = 0
    /// The seq of the last commit handed to the journal, to check that checkpoints agree with the log.
    var lastJournaledSeq: Int?
    /// True while storage failed and the room waits to be rolled back: every op is refused with `unavailable`.
    public var isRecovering = false
    /// The phase of the server's tick in which this room sends its live deltas (`RoomRegistry.phases`), set
    /// once by whoever made it.
    public var tickPhase = 0
    /// Live sessions in each colour slot, and each live colour key's slot and sessions (`Room+Colors.swift`).
    var colorSlotCounts = [Int](repeating: 0, count: SessionInfo.palette.count)
    var liveColors: [String: (slot: Int, sessions: Int)] = [:]
    /// The slot each colour key last had here, so a person who reconnects gets their colour back while it
    /// is free; the oldest are forgotten past `Room.rememberedColorLimit`.
    var rememberedColors: [String: Int] = [:]
    var rememberedColorOrder: [String] = []
    /// The runs of this canvas's history, oldest first; the last is the current one, which starts where
    /// the room was loaded or rolled back (P16).
    public internal(set) var epochs: [Epoch] = []
    /// True once the current run is handed to the journal (before its first commit).
    var epochJournaled = false

    /// The current run.
    public var epoch: Epoch { epochs[epochs.count - 1] }

    /// A room for `canvas` (typically restored from its latest snapshot) and the log of commits around it.
    /// Commits after the snapshot are replayed, and rebuild the deltas kept for resuming clients; all of
    /// them, before or after, restore exactly-once bookkeeping, as `answered` does for ops that changed nothing.
    /// `epochs` are the runs storage recorded; the room starts a new one, `epoch`, from the restored seq.
    /// `undoStacks`, when storage rebuilt them from the same history, save the room doing it.
    public init(canvas: Canvas, history: [CommitRecord] = [], epochs: [Epoch] = [], answered: [AnsweredOp] = [],
                epoch: String = Epoch.randomID(), config: RoomConfig = RoomConfig(), metrics: RoomMetrics = RoomMetrics(),
                undoStacks: UndoStacks? = nil, now: Double) {
        self.canvas = canvas
        self.config = config
        self.metrics = metrics
        self.firstRetainedSeq = canvas.seq + 1
        self.emptySince = now
        restore(history, undoStacks: undoStacks)
        restore(answered)
        durableSeq = self.canvas.seq
        beginEpoch(epoch, after: epochs)
    }

    public var sessionCount: Int { sessions.count }

    /// The guides and gaps of every gesture in progress, in shape-id order.
    var snapMarks: (guides: [Guide], gaps: [GapGuide]) {
        // Only the shapes with marks are sorted, and the guides' list gets its room at once.
        var marked: [(shape: ShapeID, marks: [CanvasEvent])] = []
        marked.reserveCapacity(held.count)
        var count = 0
        for (shape, h) in held where !h.marks.isEmpty {
            marked.append((shape, h.marks))
            count += h.marks.count
        }
        var marks: (guides: [Guide], gaps: [GapGuide]) = ([], [])
        guard count > 0 else { return marks }
        marks.guides.reserveCapacity(count)
        marked.sort { $0.shape < $1.shape }
        for (_, events) in marked {
            for event in events {
                switch event {
                case .guide(let g): marks.guides.append(g)
                case .gap(let g): marks.gaps.append(g)
                case .haptic: break
                }
            }
        }
        return marks
    }

    var sessionInfos: [SessionInfo] { order.map(\.info) }

    /// Each leased shape and the session holding it, in shape order.
    var leaseSessions: [(shape: ShapeID, session: Int)] {
        canvas.leaseHolders.compactMap { holder in Int(holder.owner).map { (holder.shape, $0) } }
    }

    /// Bytes waiting in this room's outboxes.
    public var queuedBytes: Int { sessions.values.reduce(0) { $0 + $1.outbox.queuedBytes } }

    /// The canvas as `GET /v1/canvases/{id}` shows it: the live state, shapes under a gesture included.
    public var snapshotJSON: [UInt8] {
        ServerMessage.canvasDocument(id: canvas.id, seq: canvas.seq, config: canvas.config, shapes: canvas.shapes, sessions: sessions.count)
    }
}

/// A shape a gesture leases, as its room keeps it: when an op on it was last seen (its lease lapses
/// `leaseTimeout` after), and the guides and gaps it shows, for the lead shape of a gesture.
struct HeldShape {
    var seen: Double
    var marks: [CanvasEvent]
}
