/// Where a server is in its life. Each phase carries only what belongs to it, so "shutting down since
/// when" and "sessions already closed" are one value that cannot disagree with itself. Service thread only.
enum ServerPhase: Equatable {
    /// Made; `start()` has not bound or adopted anything yet.
    case created
    /// Serving sessions and requests.
    case serving
    /// A shutdown began at `since` (the server's clock): `/healthz` fails and upgrades are refused, and the
    /// sessions stay until `--drain-seconds` have passed.
    case draining(since: Double)
    /// Every gesture in progress is committed and every session asked to close. The context stops once
    /// the connections are gone and the journal is written, or when the grace period since `since` is over.
    case closing(since: Double)
    /// The context stopped.
    case stopped

    /// When the shutdown began, once it has.
    var shutdownBegan: Double? {
        switch self {
        case .draining(let since), .closing(let since): since
        case .created, .serving, .stopped: nil
        }
    }

    /// Upgrades are refused and `/healthz` fails from the first step of a shutdown on.
    var isShuttingDown: Bool {
        switch self {
        case .created, .serving: false
        case .draining, .closing, .stopped: true
        }
    }
}
