import SnapboardCore

/// Counters a room keeps for `/metrics`. Shared by every room of a server; service thread only.
public final class RoomMetrics {
    /// Operations received, by kind (`opKinds`), counted by index: counting one hashes no string.
    private var opCounts = [Int](repeating: 0, count: RoomMetrics.opKinds.count)
    /// Operations received, by kind, with only the kinds received.
    public var ops: [String: Int] {
        Dictionary(uniqueKeysWithValues: zip(Self.opKinds, opCounts).filter { $0.1 > 0 })
    }
    static let opKinds = ["snap", "move", "scale", "rotate", "clear", "delete", "undo", "redo", "order", "lock", "style",
                          "text", "duplicate", "group", "ungroup", "connect", "endpoint"]
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
        let kind: Int
        switch op {
        case .snap: kind = 0
        case .move, .moveMany: kind = 1
        case .scale, .scaleMany: kind = 2
        case .rotate, .rotateMany: kind = 3
        case .clear: kind = 4
        case .delete: kind = 5
        case .undo: kind = 6
        case .redo: kind = 7
        case .order: kind = 8
        case .lock: kind = 9
        case .style: kind = 10
        case .text: kind = 11
        case .duplicate: kind = 12
        case .group: kind = 13
        case .ungroup: kind = 14
        case .connect: kind = 15
        case .endpoint: kind = 16
        }
        opCounts[kind] += 1
    }
}
