import SnapboardCore

/// Counters a room keeps for `/metrics`. Shared by every room of a server; service thread only.
public final class RoomMetrics {
    /// Operations received, by kind, counted by `OpKind`'s index: counting one hashes no string.
    private var opCounts = [Int](repeating: 0, count: OpKind.allCases.count)
    /// Operations received, by kind, with only the kinds received.
    public var ops: [String: Int] {
        Dictionary(uniqueKeysWithValues: OpKind.allCases.filter { opCounts[$0.rawValue] > 0 }.map { ("\($0)", opCounts[$0.rawValue]) })
    }
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

    func count(op: CanvasOp) { opCounts[OpKind(op).rawValue] += 1 }
}

/// The kinds `/metrics` counts ops by, named as its `kind` label: a selection's gesture counts as the
/// gesture it is.
enum OpKind: Int, CaseIterable {
    case snap, move, scale, rotate, clear, delete, undo, redo, order, lock, style, text, duplicate, group, ungroup, connect, endpoint

    init(_ op: CanvasOp) {
        self = switch op {
        case .snap: .snap
        case .move, .moveMany: .move
        case .scale, .scaleMany: .scale
        case .rotate, .rotateMany: .rotate
        case .clear: .clear
        case .delete: .delete
        case .undo: .undo
        case .redo: .redo
        case .order: .order
        case .lock: .lock
        case .style: .style
        case .text: .text
        case .duplicate: .duplicate
        case .group: .group
        case .ungroup: .ungroup
        case .connect: .connect
        case .endpoint: .endpoint
        }
    }
}
