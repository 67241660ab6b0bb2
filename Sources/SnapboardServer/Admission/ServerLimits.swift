/// How much the server takes on, each limit answered at the door instead of a hang (`/metrics` counts the
/// refusals under `snapboard_refused_total{reason}`).
public struct ServerLimits: Sendable, Equatable {
    /// Open WebSockets in all; past it an upgrade gets HTTP 503 (`connections`).
    public var connections = 10_000
    /// Open WebSockets from one IP address; past it an upgrade gets HTTP 429 (`ip_connections`).
    public var connectionsPerIP = 500
    /// Open WebSockets on one canvas; past it an upgrade gets HTTP 503 (`canvas_connections`).
    public var connectionsPerCanvas = 2_000
    /// Canvases in memory at once; a join that would load one more gets HTTP 503 (`canvases`).
    public var canvases = 20_000
    /// Seconds a connection may take to finish its TLS and HTTP handshake before it is dropped.
    public var handshakeSeconds = 10
    /// Ops all sessions from one IP address may send per second together, past which they get
    /// `rate_limited` (on top of each session's own `--ops-per-second`).
    public var opsPerSecondPerIP: Double = 100_000
    /// The largest HTTP request body (a canvas's settings or an import); a larger one gets HTTP 413 (`body`).
    public var requestBodyBytes = 64 << 20
    /// Bytes all unfinished WebSocket messages may hold together (fragments waiting for the rest of their
    /// message); a message that would pass it gets `too_large` and close 1009. Divided evenly among shards.
    public var unfinishedMessageBytes = 64 << 20

    public init() {}

    /// What is wrong with these limits, if anything.
    public var problem: String? {
        if connections < 1 { return "--max-connections must be at least 1" }
        if connectionsPerIP < 1 { return "--max-connections-per-ip must be at least 1" }
        if connectionsPerCanvas < 1 { return "--max-connections-per-canvas must be at least 1" }
        if canvases < 1 { return "--max-canvases must be at least 1" }
        if !(1...300).contains(handshakeSeconds) { return "--handshake-timeout must be 1...300" }
        if !(opsPerSecondPerIP >= 1) { return "--ops-per-second-per-ip must be at least 1" }
        if requestBodyBytes < 1024 { return "--max-request-body must be at least 1024" }
        if unfinishedMessageBytes < 1024 { return "--max-unfinished-bytes must be at least 1024" }
        return nil
    }
}
