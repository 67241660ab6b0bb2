/// A node of a cluster: its id (unique in the cluster) and the address clients are sent to for the canvases
/// it owns (`http://host:port` or a proxy's `http://proxy/n/node1`, no trailing slash).
public struct NodeIdentity: Hashable, Sendable {
    public var id: String
    public var address: String

    public init(id: String, address: String) {
        (self.id, self.address) = (id, address)
    }
}

/// A store several nodes share: each canvas has at most one owner, which alone may write it.
///
/// `load`, `replace` and `delete` claim the canvas: they take it when it has no owner, is this node's
/// already, or its owner is dead (its lease expired, or it holds no session on the database); otherwise
/// they throw `OwnedElsewhere`. A load claims a canvas that was never stored too (the caller still decides
/// whether to create it). `write` checks, in the batch's own transaction, that this node still owns each
/// canvas under the fence it took: a canvas that fails is `Fenced`, and nothing is written for it.
public protocol SharedCanvasStore: CanvasStore {
    var node: NodeIdentity { get }
    /// True while this node's lease is fresh by its own monotonic clock: only then may it ack.
    var leaseIsFresh: Bool { get }
    /// Starts renewing the lease on a thread of its own; `onChange(false)` when it stops being fresh, `(true)` when renewed again.
    func startLease(onChange: @escaping @Sendable (Bool) -> Void) throws
    /// Gives canvas `id` up when this node owns it (another node may take it at once).
    func release(_ id: String) throws
    /// Releases every canvas this node owns and ends its lease (drain, shutdown).
    func leave() throws
    /// The live owner of each of `ids` that has one: a node whose lease is fresh by the database's clock and
    /// that holds a session on it (the owner a claim would not take the canvas from), this node included.
    func owners(_ ids: [String]) throws -> [String: NodeIdentity]
    /// Figures for /metrics: takeovers, fenced batches, unknown commit outcomes and how they ended, lease renewals and failures, replication lag.
    func clusterFigures() -> ClusterFigures
}

/// What a shared store counts since it started, for `/metrics` (counters only go up).
public struct ClusterFigures: Sendable, Equatable {
    /// How the commits whose outcome was unknown (the connection lost or closed during COMMIT) ended.
    public struct UnknownOutcomes: Sendable, Equatable {
        /// The log held the batch: it had committed, and was acked.
        public var acked = 0
        /// The log stopped just before the batch: written again with the same seqs.
        public var retried = 0
        /// Neither: the write failed and the canvas is reloaded.
        public var reloaded = 0

        public init() {}

        public var total: Int { acked + retried + reloaded }
    }

    /// Canvases this node took from another owner (dead, or one that released them), not counting
    /// first claims of canvases without an owner.
    public var takeovers = 0
    /// Canvases this node gave up (`release`, `leave`).
    public var releases = 0
    /// Batches in which at least one canvas was `Fenced`.
    public var fencedBatches = 0
    public var unknownOutcomes = UnknownOutcomes()
    /// Successful lease renewals, and attempts that failed (an error or a timeout).
    public var leaseRenewals = 0
    public var leaseFailures = 0
    /// How far the slowest standby's replay is behind the primary, as the primary last reported it; nil
    /// when unknown (no standby, or not asked yet).
    public var replicationLagSeconds: Double?

    public init() {}
}

/// The canvas has a live owner elsewhere: point the client there (421 on an upgrade, 307 for HTTP, Location = owner.address + path).
public struct OwnedElsewhere: Error, Sendable, CustomStringConvertible {
    public var canvas: String
    public var owner: NodeIdentity

    public init(canvas: String, owner: NodeIdentity) {
        (self.canvas, self.owner) = (canvas, owner)
    }

    public var description: String { "canvas \(canvas) is owned by node \(owner.id) (\(owner.address))" }
}

/// A write found that this node no longer owns these canvases (another owner or a newer fence): nothing was written for them.
///
/// The entries of the batch's other canvases were written (in a transaction of their own) when `write`
/// throws this: `Journal` reports them durable and only these as failed.
public struct Fenced: Error, Sendable, CustomStringConvertible {
    public var canvases: Set<String>

    public init(canvases: Set<String>) { self.canvases = canvases }

    public var description: String { "this node no longer owns \(canvases.sorted().joined(separator: ", ")): fenced, nothing written for them" }
}

/// The node's lease is not fresh: it may not write or ack until it renews.
public struct LeaseLost: Error, Sendable, CustomStringConvertible {
    public init() {}

    public var description: String { "this node's lease is not fresh: it may not write or ack until it renews" }
}
