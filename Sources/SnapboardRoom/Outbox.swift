import SnapboardCore
import SnapboardProtocol

/// What is waiting to go to one session. The room fills it; the transport empties it one message at a time
/// (when the tick ends, or in a writable callback), so everything pending for a client leaves in a single
/// frame (a message in parts goes on its own, as fragments).
///
/// Not thread-safe: the room and the transport both live on the libwebsockets service thread.
public final class Outbox {
    /// Messages in order, each already serialised (and shared with other recipients).
    private(set) var ordered: [OutgoingMessage] = []
    /// For each of `ordered`: whether it answers this session's own messages (acks, rejects, errors, pongs),
    /// which a resync keeps, and the bytes it adds to `orderedBytes`.
    private var meta: [(answer: Bool, counted: Int)] = []
    private(set) var orderedBytes = 0
    /// The part of `orderedBytes` that answers this session's own messages: what a resync cannot drop.
    public private(set) var answerBytes = 0
    /// The latest live delta, which always goes after `ordered` and is replaced, not appended, by the next tick.
    private(set) var live: Frame?
    /// The shapes and op ids the unsent live delta covers, so a newer tick can be merged into it.
    var liveShapes: [ShapeID] = []
    var liveShapeSet: Set<ShapeID> = []
    var liveOps: [String] = []
    var liveHaptics: [Haptic] = []
    /// When the transport last took a frame (or the session joined): how long the client has been stuck.
    public internal(set) var lastDrained: Double = 0
    /// A close the transport should perform once the queue is sent. Once it is asked for, nothing more is
    /// queued.
    public private(set) var close: (code: UInt16, reason: String)?
    /// Called when the outbox goes from empty to non-empty: the transport writes it when the tick ends, or
    /// asks for a writable callback.
    public var onReady: () -> Void = {}
    /// Called once, when a close is asked for: the transport bounds how long the close may wait for a
    /// client that does not read.
    public var onClose: () -> Void = {}

    public init() {}

    /// True when anything waits to be sent.
    public var hasPending: Bool { !ordered.isEmpty || live != nil || close != nil }

    /// The bytes queued: the backpressure measure. Every message counts, answers included; of a welcome,
    /// only its own head and tail count, not the canvas's shapes it shares with every welcome of the same
    /// state: those are as large as the canvas, and a welcome is what a resync sends, so counting them
    /// would resync a client of a large canvas forever.
    public var queuedBytes: Int { orderedBytes + (live?.count ?? 0) }

    /// True while a live delta is queued but unsent: the client is behind by at least a tick.
    var hasUnsentLive: Bool { live != nil }

    func enqueue(_ message: Frame, counted: Bool = true, answer: Bool = false) {
        guard close == nil else { return }
        let wasEmpty = !hasPending
        flushLive()
        ordered.append(.whole(message))
        meta.append((answer, counted ? message.count : 0))
        if counted { orderedBytes += message.count }
        if counted, answer { answerBytes += message.count }
        if wasEmpty { onReady() }
    }

    /// Queues a message in `parts`, sent as one message (a welcome); of its bytes, those of the parts at
    /// `counted` count as backpressure (its own head and tail, not the shapes it shares).
    func enqueue(parts: [Frame], counted: [Int] = []) {
        guard close == nil else { return }
        let wasEmpty = !hasPending
        flushLive()
        let bytes = counted.reduce(0) { $0 + parts[$1].count }
        ordered.append(.parts(parts))
        meta.append((false, bytes))
        orderedBytes += bytes
        if wasEmpty { onReady() }
    }

    /// Queues a message for this session alone.
    func enqueue(_ message: [UInt8], counted: Bool = true) { enqueue(Frame(payload: message), counted: counted) }

    /// Queues the answer to one of this session's own messages: an ack, a reject, an error or a pong.
    func enqueueAnswer(_ message: [UInt8]) { enqueue(Frame(payload: message), answer: true) }

    func setLive(_ message: Frame) {
        guard close == nil else { return }
        let wasEmpty = !hasPending
        live = message
        if wasEmpty { onReady() }
    }

    /// Moves the live delta into the ordered queue, so nothing queued after it can overtake it.
    private func flushLive() {
        guard let live else { return }
        ordered.append(.whole(live))
        meta.append((false, live.count))
        orderedBytes += live.count
        clearLive()
    }

    /// Lets go of the live delta and what it covers. The tick hands every outbox the same collections, so
    /// emptying them in place would allocate a fresh buffer for each: they are let go of instead.
    private func clearLive() {
        live = nil
        liveShapes = []
        liveShapeSet = []
        liveOps = []
        liveHaptics = []
    }

    /// Drops everything queued but the answers, which it returns: the session is about to be sent a fresh
    /// welcome instead, which replaces every delta and presence, but not an ack the client waits for (P17).
    func reset() -> [Frame] {
        let kept = zip(ordered, meta).filter(\.1.answer).compactMap(\.0.frame)
        ordered.removeAll()
        meta.removeAll()
        orderedBytes = 0
        answerBytes = 0
        clearLive()
        return kept
    }

    /// Asks the transport to close once what is queued is sent; the first close asked for is the one made.
    public func requestClose(code: UInt16, reason: String) {
        guard close == nil else { return }
        let wasEmpty = !hasPending
        close = (code, reason)
        onClose()
        if wasEmpty { onReady() }
    }

    /// The most bytes one batch takes (unless its first message is larger). What is left stays here, counted
    /// as backpressure, rather than waiting unseen in the transport's buffer after a partial write: a client
    /// that paused gets its backlog a batch per writable callback.
    public static let maxBatchBytes = 64 << 10

    /// What is pending as one frame: the single message, or a JSON array of them in order, up to the first
    /// message in parts (which is taken on its own) and up to `maxBatchBytes`. Nil when nothing but a close
    /// is pending. `now` records that the client is keeping up.
    public func take(now: Double) -> OutgoingMessage? {
        lastDrained = now
        if ordered.isEmpty, let live {
            // The commonest frame of a drag: the tick's live delta alone.
            clearLive()
            return .whole(live)
        }
        flushLive()
        guard let first = ordered.first else { return nil }
        var end = 1
        if case .whole(let frame) = first {
            var bytes = frame.count
            while end < ordered.count, let next = ordered[end].frame, bytes + next.count <= Self.maxBatchBytes {
                bytes += next.count
                end += 1
            }
        }
        let message = end == 1 ? first : .whole(Frame(batch: ordered[..<end].map { $0.frame! }))
        if end == ordered.endIndex {
            ordered.removeAll(keepingCapacity: true)
            meta.removeAll(keepingCapacity: true)
            orderedBytes = 0
            answerBytes = 0
        } else {
            orderedBytes -= meta[..<end].reduce(0) { $0 + $1.counted }
            answerBytes -= meta[..<end].reduce(0) { $0 + ($1.answer ? $1.counted : 0) }
            ordered.removeFirst(end)
            meta.removeFirst(end)
        }
        return message
    }

    /// The transport took part of a message in parts: the client is keeping up.
    public func drained(now: Double) { lastDrained = now }
}
