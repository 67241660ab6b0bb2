/// The ops a client has sent and the server has not answered yet, in order. Committing ops stay until
/// acked or rejected; after a reconnect they are sent again, which exactly-once makes safe.
public struct PendingOps: Sendable {
    public struct Op: Sendable, Equatable {
        public var id: String
        /// The op's JSON text, as sent.
        public var text: String
        public var commits: Bool
    }

    public private(set) var ops: [Op] = []
    private var next = 1
    private let prefix: String

    /// `prefix` makes op ids unique across this client's runs (for instance its client id and a start time).
    public init(prefix: String) { self.prefix = prefix }

    /// A fresh op id.
    public mutating func makeID() -> String {
        defer { next += 1 }
        return "\(prefix)-\(next)"
    }

    /// Tracks a sent op until it is answered. Begins and updates are never acked (P6): they are not kept, so
    /// a long drag does not grow the list by an entry per update.
    public mutating func sent(id: String, text: String, commits: Bool) {
        guard commits else { return }
        ops.append(Op(id: id, text: text, commits: commits))
    }

    /// Forgets an op the server answered (ack, reject, or an error naming it); returns whether it was pending.
    @discardableResult
    public mutating func answered(_ id: String) -> Bool {
        guard let i = ops.firstIndex(where: { $0.id == id }) else { return false }
        ops.remove(at: i)
        return true
    }

    /// What to send again after reconnecting: committing ops only (a begin or update is stale by then).
    public mutating func toResend() -> [Op] {
        ops.removeAll { !$0.commits }
        return ops
    }
}

/// When to try reconnecting: exponential backoff with full jitter, reset by a successful connection.
public struct ReconnectPolicy: Sendable {
    public var base: Double = 0.25
    public var cap: Double = 8
    public private(set) var attempt = 0

    public init(base: Double = 0.25, cap: Double = 8) {
        self.base = base
        self.cap = cap
    }

    /// Seconds to wait before the next attempt, given a random number in 0..<1.
    public mutating func nextDelay(random: Double) -> Double {
        defer { attempt += 1 }
        return min(cap, base * Double(1 << min(attempt, 16))) * (0.5 + random / 2)
    }

    public mutating func connected() { attempt = 0 }
}
