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
