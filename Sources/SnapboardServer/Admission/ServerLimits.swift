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
    /// Canvases stored on this node; past it a join that would create one is closed with 4507 and
    /// `POST` (or an import to a new id) gets HTTP 507 (`stored_canvases`).
    public var storedCanvases = 100_000
    /// Seconds a connection may take to finish its TLS and HTTP handshake before it is dropped.
    public var handshakeSeconds = 10
    /// Ops all sessions from one IP address may send per second together, past which they get
    /// `rate_limited` (on top of each session's own `--ops-per-second`).
    public var opsPerSecondPerIP: Double = 100_000
    /// Threads that serve heavy reads (exports, past states, history pages), each on a read-only
    /// connection of its own, apart from the journal's commits.
    public var readWorkers = 2
    /// Heavy reads that may wait for a reader thread; past them a read gets HTTP 503 `busy` (`reads`).
    public var queuedReads = 8
    /// Heavy reads one IP address may start per second; past it HTTP 429 `rate_limited` (`ip_reads`).
    public var readsPerSecondPerIP: Double = 10
    /// Heavy reads one access token may start per second; past it HTTP 429 `rate_limited` (`token_reads`).
    public var readsPerSecondPerToken: Double = 10
    /// Request bodies received at once, in all; past it a POST or PUT gets HTTP 503 `busy` (`uploads`).
    public var uploads = 64
    /// Request bodies received at once from one IP address; past it HTTP 429 `too_many_uploads` (`ip_uploads`).
    public var uploadsPerIP = 8
    /// The bytes the bodies being received may declare together; past it HTTP 503 `busy` (`upload_memory`).
    public var uploadMemoryBytes = 128 << 20
    /// The slowest a body may arrive, in bytes a second, after 10 s: a body gets 10 s plus its length at this
    /// rate, past which it is answered HTTP 408 `too_slow` and its connection closed (`upload_time`).
    public var minUploadBytesPerSecond = 16 << 10
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
        if storedCanvases < 1 { return "--max-stored-canvases must be at least 1" }
        if !(1...300).contains(handshakeSeconds) { return "--handshake-timeout must be 1...300" }
        if !(opsPerSecondPerIP >= 1) { return "--ops-per-second-per-ip must be at least 1" }
        if !(1...64).contains(readWorkers) { return "--read-workers must be 1...64" }
        if !(0...10_000).contains(queuedReads) { return "--max-queued-reads must be 0...10000" }
        if !(readsPerSecondPerIP >= 1 && readsPerSecondPerIP <= 1e6) { return "--reads-per-second-per-ip must be 1...1000000" }
        if !(readsPerSecondPerToken >= 1 && readsPerSecondPerToken <= 1e6) { return "--reads-per-second-per-token must be 1...1000000" }
        if requestBodyBytes < 1024 { return "--max-request-body must be at least 1024" }
        if uploads < 1 { return "--max-uploads must be at least 1" }
        if uploadsPerIP < 1 { return "--max-uploads-per-ip must be at least 1" }
        if uploadMemoryBytes < requestBodyBytes { return "--max-upload-memory must be at least --max-request-body" }
        if !(1...(1 << 30)).contains(minUploadBytesPerSecond) { return "--min-upload-rate must be 1...1073741824" }
        if unfinishedMessageBytes < 1024 { return "--max-unfinished-bytes must be at least 1024" }
        return nil
    }
}
