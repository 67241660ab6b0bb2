import SnapboardCore
import SnapboardProtocol

/// What is waiting to go to one session. The room fills it; the transport empties it, one frame per
/// writable callback, so everything pending for a client leaves in a single frame.
///
/// Not thread-safe: the room and the transport both live on the libwebsockets service thread.
public final class Outbox {
    /// Messages in order, each already serialised into a frame (shared with other recipients).
    private(set) var ordered: [Frame] = []
    /// Which of `ordered` answer this session's own messages (acks, rejects, errors, pongs): a resync keeps them.
    private var answers: [Bool] = []
    private(set) var orderedBytes = 0
    /// The latest live delta, which always goes after `ordered` and is replaced, not appended, by the next tick.
    private(set) var live: Frame?
    /// The shapes and op ids the unsent live delta covers, so a newer tick can be merged into it.
    var liveShapes: [ShapeID] = []
    var liveShapeSet: Set<ShapeID> = []
    var liveOps: [String] = []
    var liveHaptics: [Haptic] = []
    /// When the transport last took a frame (or the session joined): how long the client has been stuck.
    public internal(set) var lastDrained: Double = 0
    /// A close the transport should perform once the queue is sent.
    public private(set) var close: (code: UInt16, reason: String)?
    /// Called when the outbox goes from empty to non-empty: the transport asks for a writable callback.
    public var onReady: () -> Void = {}

    public init() {}

    /// True when anything waits to be sent.
    public var hasPending: Bool { !ordered.isEmpty || live != nil || close != nil }

    /// The bytes queued, welcomes excepted: the backpressure measure. A welcome is as large as the canvas
    /// and is what a resync sends, so counting it would resync a client of a large canvas forever.
    public var queuedBytes: Int { orderedBytes + (live?.count ?? 0) }

    /// True while a live delta is queued but unsent: the client is behind by at least a tick.
    var hasUnsentLive: Bool { live != nil }

    func enqueue(_ message: Frame, counted: Bool = true, answer: Bool = false) {
        let wasEmpty = !hasPending
        flushLive()
        ordered.append(message)
        answers.append(answer)
        if counted { orderedBytes += message.count }
        if wasEmpty { onReady() }
    }

    /// Queues a message for this session alone.
    func enqueue(_ message: [UInt8], counted: Bool = true) { enqueue(Frame(payload: message), counted: counted) }

    /// Queues the answer to one of this session's own messages: an ack, a reject, an error or a pong.
    func enqueueAnswer(_ message: [UInt8]) { enqueue(Frame(payload: message), answer: true) }

    func setLive(_ message: Frame) {
        let wasEmpty = !hasPending
        live = message
        if wasEmpty { onReady() }
    }

    /// Moves the live delta into the ordered queue, so nothing queued after it can overtake it.
    private func flushLive() {
        guard let live else { return }
        ordered.append(live)
        answers.append(false)
        orderedBytes += live.count
        clearLive()
    }

    private func clearLive() {
        live = nil
        liveShapes.removeAll(keepingCapacity: true)
        liveShapeSet.removeAll(keepingCapacity: true)
        liveOps.removeAll(keepingCapacity: true)
        liveHaptics.removeAll(keepingCapacity: true)
    }

    /// Drops everything queued but the answers, which it returns: the session is about to be sent a fresh
    /// welcome instead, which replaces every delta and presence, but not an ack the client waits for (P17).
    func reset() -> [Frame] {
        let kept = zip(ordered, answers).filter(\.1).map(\.0)
        ordered.removeAll()
        answers.removeAll()
        orderedBytes = 0
        clearLive()
        return kept
    }

    public func requestClose(code: UInt16, reason: String) {
        let wasEmpty = !hasPending
        close = (code, reason)
        if wasEmpty { onReady() }
    }

    /// Everything pending as one frame: the single message, or a JSON array of them in order.
    /// Nil when nothing but a close is pending. `now` records that the client is keeping up.
    public func takeFrame(now: Double) -> Frame? {
        lastDrained = now
        flushLive()
        guard !ordered.isEmpty else { return nil }
        let frame = ordered.count == 1 ? ordered[0] : Frame(batch: ordered)
        ordered.removeAll(keepingCapacity: true)
        answers.removeAll(keepingCapacity: true)
        orderedBytes = 0
        return frame
    }
}
