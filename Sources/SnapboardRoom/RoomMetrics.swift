import SnapboardCore

/// Counters a room keeps for `/metrics`. Shared by every room of a server; service thread only.
public final class RoomMetrics {
    public var ops: [String: Int] = [:]
    public var rejects: [String: Int] = [:]
    public var errors: [String: Int] = [:]
    public var acks = 0
    public var duplicateOps = 0
    public var deltasSent = 0
    public var bytesQueued = 0
    /// Presence bytes queued to clients: every copy of a change, and 1.1 clients' session lists (P11).
    public var presenceBytes = 0
    public var framesSent = 0
    public var bytesSent = 0
    public var coalesced = 0
    public var resyncs = 0
    public var slowCloses = 0
    public var resumes = 0
    public var leaseExpiries = 0
    public var storageFailures = 0
    /// Cursor positions relayed (one per session per tick), and cursor messages dropped over the budget.
    public var cursorsRelayed = 0
    public var cursorsDropped = 0
    /// From receiving a committing op to queueing its ack (after it is durable, with a journal).
    public var ackLatency = BucketHistogram()

    public init() {}

    func count(op: CanvasOp) {
        let kind: String
        switch op {
        case .snap: kind = "snap"
        case .move: kind = "move"
        case .scale: kind = "scale"
        case .rotate: kind = "rotate"
        case .clear: kind = "clear"
        case .delete: kind = "delete"
        case .undo: kind = "undo"
        case .redo: kind = "redo"
        case .order: kind = "order"
        case .lock: kind = "lock"
        case .style: kind = "style"
        case .text: kind = "text"
        case .duplicate: kind = "duplicate"
        case .group: kind = "group"
        case .ungroup: kind = "ungroup"
        case .connect: kind = "connect"
        case .endpoint: kind = "endpoint"
        case .moveMany: kind = "move"
        case .scaleMany: kind = "scale"
        case .rotateMany: kind = "rotate"
        }
        ops[kind, default: 0] += 1
    }
}
