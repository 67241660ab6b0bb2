/// How a room behaves; the server fills it from its command line.
public struct RoomConfig: Sendable {
    /// A gesture's lease ends after this many seconds without an update; its last state commits.
    public var leaseTimeout: Double = 5
    /// How many committed deltas are kept for clients resuming with `since`.
    public var retainedDeltas = 10_000
    /// A checkpoint (a snapshot of the committed state) goes to the journal every this many commits.
    public var checkpointEvery = 1_000
    /// When true, checkpoints leave the op log whole: every op ever committed stays in the store, for audit
    /// and for checking a cluster's history. When false, a checkpoint drops the ops older than the last
    /// `retainedDeltas`.
    public var keepsWholeLog = false
    /// How many acked op ids are remembered per client for exactly-once resends.
    public var rememberedOpsPerClient = 10_000
    /// How many changes each client can undo (and redo), at most: older ones drop off.
    public var undoDepth = 100
    /// A session whose unsent messages exceed this many bytes, and whose socket has taken nothing for
    /// `stuckSeconds`, gets a fresh welcome instead. A burst the client is keeping up with is not held
    /// against it, unless its queue passes `hardLimitFactor` times the bound.
    public var maxQueuedBytes = 1 << 20
    public var stuckSeconds: Double = 0.5
    public var hardLimitFactor = 8
    /// A session resynced this many times within `resyncWindow` seconds is closed with 4000 (resume).
    public var maxResyncs = 3
    public var resyncWindow: Double = 10
    /// Ops a session may send per second before they are refused with `rate_limited` (burst: one second's worth).
    public var opsPerSecond: Double = 2_000
    /// Cursor messages a session may send per second (burst: one second's worth); extra ones are dropped,
    /// and the first of each second is answered with a `rate_limited` error.
    public var cursorsPerSecond: Double = 120
    /// Protocol errors a session may cause within ten seconds before it is closed with 1008.
    public var maxErrors = 20
    /// Pings a session may send per second (burst: one second's worth). Each one beyond is still answered,
    /// but counts as an error toward `maxErrors`: a pong is queued for the client like any answer.
    public var pingsPerSecond: Double = 10
    /// Refused ops a session may cause per second (burst: one second's worth). Each one beyond is still
    /// answered, but counts as an error toward `maxErrors`.
    public var rejectsPerSecond: Double = 100
    /// Bytes of session lists a 1.1 client is sent per second at most (P11): joins and leaves reach it
    /// coalesced, at most one list a tick, and a list waits for as long as the previous one's bytes take
    /// at this rate, so a room of N such clients costs each O(1) bytes a second, not O(N) per join.
    public var presenceListBytesPerSecond: Double = 32_768

    public init() {}
}
