import ArgumentParser
import Dispatch
import Foundation
import Logging
import SnapboardAuth
import SnapboardCore
import SnapboardLWS
import SnapboardServer
import SnapboardStore
import SnapboardTesting

/// Serves canvases over WebSockets, with `/healthz`, `/metrics` and canvas snapshots on the same port.
/// Every option can also come from a `SNAPBOARD_*` environment variable (flags win).
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serves Snapboard canvases over WebSockets (the default).",
        discussion: "Every option may also be set with an environment variable: --tick-ms as SNAPBOARD_TICK_MS, and so on.")

    @OptionGroup var storage: StorageOptions

    @Option(help: "Address to listen on (SNAPBOARD_HOST).")
    var host = env("HOST") ?? "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one (SNAPBOARD_PORT).")
    var port = Int(env("PORT") ?? "") ?? 8080

    @Option(help: "Width of new canvases (SNAPBOARD_WIDTH).")
    var width = Double(env("WIDTH") ?? "") ?? 1024

    @Option(help: "Height of new canvases (SNAPBOARD_HEIGHT).")
    var height = Double(env("HEIGHT") ?? "") ?? 768

    @Option(help: "Grid pitch of new canvases, in canvas units (SNAPBOARD_GRID_PITCH).")
    var gridPitch = Double(env("GRID_PITCH") ?? "") ?? 32

    @Option(help: "Divide new canvases into this many columns and rows instead of a pitch (SNAPBOARD_GRID_DIVISIONS).")
    var gridDivisions: Int?

    @Option(help: "Snap threshold in canvas units at zoom 1 (SNAPBOARD_SNAP_THRESHOLD).")
    var snapThreshold = Double(env("SNAP_THRESHOLD") ?? "") ?? 5

    @Option(help: "Extra distance past the threshold that releases a held snap (SNAPBOARD_SNAP_RELEASE_MARGIN).")
    var snapReleaseMargin = Double(env("SNAP_RELEASE_MARGIN") ?? "") ?? 4

    @Option(help: "Milliseconds between coalesced live updates (SNAPBOARD_TICK_MS).")
    var tickMs = Int(env("TICK_MS") ?? "") ?? 16

    @Option(help: "The longest the tick stretches to while the server is busy; --tick-ms keeps it fixed (SNAPBOARD_MAX_TICK_MS).")
    var maxTickMs: Int?
    /// `--max-tick-ms`, else `SNAPBOARD_MAX_TICK_MS`.
    var maxTick: Int? { maxTickMs ?? Int(env("MAX_TICK_MS") ?? "") }

    @Option(help: "The tick's parts: each sends the live updates of its share of the canvases, one after the other, so that a tick's writes are spread out (SNAPBOARD_TICK_PHASES).")
    var tickPhases = Int(env("TICK_PHASES") ?? "") ?? 2

    @Option(help: "Service threads, each serving its own share of the canvases; more than 1 needs plain HTTP (SNAPBOARD_SHARDS).")
    var shards = Int(env("SHARDS") ?? "") ?? 1

    @Option(help: "Event loop under libwebsockets: libev (epoll) or poll (SNAPBOARD_EVENT_LOOP).")
    var eventLoop = env("EVENT_LOOP") ?? "libev"

    @Option(help: "Largest client message in bytes (SNAPBOARD_MAX_MESSAGE_BYTES).")
    var maxMessageBytes = Int(env("MAX_MESSAGE_BYTES") ?? "") ?? 64 * 1024

    @Option(help: "Seconds without an update before a gesture's lease expires (SNAPBOARD_LEASE_TIMEOUT).")
    var leaseTimeout = Double(env("LEASE_TIMEOUT") ?? "") ?? 5

    @Option(help: "Seconds a canvas stays loaded with no session (SNAPBOARD_IDLE_UNLOAD).")
    var idleUnload = Double(env("IDLE_UNLOAD") ?? "") ?? 30

    @Option(help: "Bytes a client may fall behind before it is resynced (SNAPBOARD_MAX_QUEUED_BYTES).")
    var maxQueuedBytes = Int(env("MAX_QUEUED_BYTES") ?? "") ?? 1 << 20

    @Option(help: "Seconds a client's socket may take nothing, while its queue is over --max-queued-bytes, before it is resynced (SNAPBOARD_STUCK_SECONDS).")
    var stuckSeconds = Double(env("STUCK_SECONDS") ?? "") ?? 0.5

    @Option(help: "Kernel send buffer per WebSocket in bytes; unset leaves the kernel's autotuning (SNAPBOARD_SEND_BUFFER_BYTES).")
    var sendBufferBytes: Int?

    @Option(help: "Serve the browser client from this folder instead of the files shipped with the server, for working on it (SNAPBOARD_WEB_ROOT).")
    var webRoot: String?

    @Option(help: "Commits between checkpoints of a canvas (SNAPBOARD_CHECKPOINT_EVERY).")
    var checkpointEvery = Int(env("CHECKPOINT_EVERY") ?? "") ?? 1_000

    @Flag(help: "Never drop old ops from the op log at a checkpoint: the store keeps every op, for audit (SNAPBOARD_KEEP_WHOLE_LOG=1).")
    var keepWholeLog = ["1", "true", "yes"].contains(env("KEEP_WHOLE_LOG")?.lowercased() ?? "")

    @Option(help: "Ops a session may send per second before rate_limited (SNAPBOARD_OPS_PER_SECOND).")
    var opsPerSecond = Double(env("OPS_PER_SECOND") ?? "") ?? 2_000

    @Option(help: "trace, debug, info, notice, warning, error or critical (SNAPBOARD_LOG_LEVEL).")
    var logLevel = env("LOG_LEVEL") ?? "info"

    @Option(help: "text, or json: one JSON object a line (SNAPBOARD_LOG_FORMAT).")
    var logFormat = env("LOG_FORMAT") ?? "text"

    @Option(help: "Seconds a silent WebSocket waits before the server pings it (SNAPBOARD_PING_SECONDS).")
    var pingSeconds = Int(env("PING_SECONDS") ?? "") ?? 30

    @Option(help: "Seconds of silence, the ping unanswered, before a WebSocket is dropped (SNAPBOARD_IDLE_TIMEOUT).")
    var idleTimeout = Int(env("IDLE_TIMEOUT") ?? "") ?? 60

    @Option(help: "Seconds a shutdown keeps its sessions after /healthz starts answering 503, for a proxy to stop sending clients here (SNAPBOARD_DRAIN_SECONDS).")
    var drainSeconds = Double(env("DRAIN_SECONDS") ?? "") ?? 0

    @OptionGroup(title: "Access") var access: AccessOptions

    @OptionGroup(title: "TLS and limits") var limits: LimitOptions

    @OptionGroup(title: "Cluster (with --database-url)") var cluster: ClusterOptions

    /// The numeric `SNAPBOARD_*` variables: one that is set but does not parse stops the server, instead of
    /// being ignored for the default.
    static let wholeNumberVariables = [
        "PORT", "TICK_MS", "MAX_TICK_MS", "TICK_PHASES", "MAX_MESSAGE_BYTES", "MAX_QUEUED_BYTES", "SEND_BUFFER_BYTES", "CHECKPOINT_EVERY",
        "PING_SECONDS", "IDLE_TIMEOUT", "GRID_DIVISIONS", "MAX_CONNECTIONS", "MAX_CONNECTIONS_PER_IP",
        "MAX_CONNECTIONS_PER_CANVAS", "MAX_CANVASES", "MAX_SHAPES", "HANDSHAKE_TIMEOUT",
    ]
    static let numberVariables = [
        "WIDTH", "HEIGHT", "GRID_PITCH", "SNAP_THRESHOLD", "SNAP_RELEASE_MARGIN", "LEASE_TIMEOUT", "IDLE_UNLOAD",
        "STUCK_SECONDS", "OPS_PER_SECOND", "OPS_PER_SECOND_PER_IP", "DRAIN_SECONDS", "MAX_REQUEST_BODY",
    ]

    func validate() throws {
        for name in Self.wholeNumberVariables {
            if let value = env(name), Int(value) == nil { throw ValidationError("SNAPBOARD_\(name)=\(value) is not a whole number") }
        }
        for name in Self.numberVariables {
            if let value = env(name), Double(value)?.isFinite != true { throw ValidationError("SNAPBOARD_\(name)=\(value) is not a number") }
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard (0...600).contains(drainSeconds) else { throw ValidationError("--drain-seconds must be 0...600") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard ["text", "json"].contains(logFormat) else { throw ValidationError("--log-format is text or json") }
        guard tickMs >= 1, tickMs <= 1000 else { throw ValidationError("--tick-ms must be 1...1000") }
        guard (maxTick ?? tickMs) >= tickMs, (maxTick ?? 0) <= 1000 else { throw ValidationError("--max-tick-ms must be --tick-ms...1000") }
        guard (1...16).contains(tickPhases) else { throw ValidationError("--tick-phases must be 1...16") }
        guard (1...64).contains(shards) else { throw ValidationError("--shards must be 1...64") }
        guard shards == 1 || limits.tlsFiles == nil else {
            throw ValidationError("--shards needs plain HTTP: the acceptor reads each request's path to place it, which TLS hides (terminate TLS in front, see docs/operations.md, \"Using more than one core\")")
        }
        guard EventLoop(rawValue: eventLoop) != nil else { throw ValidationError("--event-loop is poll or libev") }
        guard maxMessageBytes >= 256 else { throw ValidationError("--max-message-bytes must be at least 256") }
        guard (1...3600).contains(pingSeconds), pingSeconds < idleTimeout, idleTimeout <= 7200 else {
            throw ValidationError("--ping-seconds must be 1...3600 and less than --idle-timeout (at most 7200)")
        }
        if let problem = canvasConfig.problem { throw ValidationError("canvas defaults: \(problem)") }
        if storage.databaseURL != nil {
            try cluster.check(port: port)
            guard limits.tlsFiles == nil else {
                throw ValidationError("a cluster node (--database-url) serves plain HTTP: terminate TLS in front of it, at the proxy (see docs/operations.md, \"Running a cluster\")")
            }
        }
        try limits.check()
        try access.check()
        if !access.requiresTokens, !OriginPolicy.isLoopback(host), !access.insecureOpen {
            throw ValidationError("""
                refusing to serve \(host) with no access control: anyone who reaches it could read, change and wipe \
                every canvas. Give --auth-secret or --auth-public-key (see docs/operations.md, "Access control"), or \
                --insecure-open to serve it open anyway.
                """)
        }
    }

    var canvasConfig: CanvasConfig {
        var c = CanvasConfig()
        c.width = width
        c.height = height
        if let n = gridDivisions ?? Int(env("GRID_DIVISIONS") ?? "") {
            c.gridX = .divisions(n)
            c.gridY = .divisions(n)
        } else {
            c.gridX = .pitch(gridPitch)
            c.gridY = .pitch(gridPitch)
        }
        c.snapping.threshold = snapThreshold
        c.snapping.releaseMargin = snapReleaseMargin
        c.maxShapes = limits.maxShapes
        return c
    }

    func run() throws {
        // Every logger, libwebsockets' included, has the same format and level.
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let json = logFormat == "json"
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = json ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "snapboard")
        var options = ServerOptions()
        options.host = host
        options.port = port
        options.canvas = canvasConfig
        options.tickMilliseconds = tickMs
        // Unset, the tick may double (to 33 ms from the default 16): the p99 target of 50 ms still holds.
        options.maxTickMilliseconds = maxTick ?? 2 * tickMs + 1
        options.tickPhases = tickPhases
        options.eventLoop = EventLoop(rawValue: eventLoop) ?? .libev
        options.shards = shards
        options.maxMessageBytes = maxMessageBytes
        options.idleUnloadSeconds = idleUnload
        options.drainSeconds = drainSeconds
        (options.pingSeconds, options.idleTimeoutSeconds) = (pingSeconds, idleTimeout)
        options.webRoot = webRoot ?? env("WEB_ROOT")
        options.room.leaseTimeout = leaseTimeout
        options.room.maxQueuedBytes = maxQueuedBytes
        options.room.stuckSeconds = stuckSeconds
        options.room.opsPerSecond = opsPerSecond
        options.room.checkpointEvery = max(1, checkpointEvery)
        options.room.keepsWholeLog = keepWholeLog
        options.sendBufferBytes = sendBufferBytes ?? Int(env("SEND_BUFFER_BYTES") ?? "")
        do {
            options.tokens = try access.verifier()
        } catch {
            logger.critical("\(error)")
            throw ExitCode(2)
        }
        options.adminToken = access.adminToken
        options.metricsCanvasNames = access.metricsCanvasNames
        options.origins = OriginPolicy(allowedOrigins: access.origins, allowedHosts: access.hosts)
        options.limits = limits.serverLimits
        options.tls = limits.tlsFiles
        if let tokens = options.tokens {
            let claims = [tokens.audience.map { "aud \($0)" }, tokens.issuer.map { "iss \($0)" }].compactMap { $0 }
            logger.notice("access: tokens required (\((tokens.algorithms + claims).joined(separator: ", ")))")
        } else if OriginPolicy.isLoopback(host) {
            logger.notice("access: open, no token required: anyone on this machine may read and edit every canvas")
        } else {
            logger.warning("access: OPEN (--insecure-open), no token required: anyone who reaches \(host) may read and edit every canvas")
        }
        if limits.conformanceEcho { return try runEcho(options, logger: logger) }
        let store: CanvasStore
        let lock: DataFileLock?
        do {
            if let url = storage.databaseURL {
                // A cluster node: canvases in PostgreSQL, one owner each; the lease starts with the server.
                lock = nil
                store = try cluster.open(url, port: port, logger: logger)
            } else {
                lock = try storage.lock()
                store = try storage.open()
            }
        } catch {
            logger.critical("\(error)")
            throw ExitCode(2)
        }
        let server = Shards(options: options, store: store, logger: logger)
        if shards > 1 { logger.notice("\(shards) shards: each serves the canvases whose ids hash to it, on a thread of its own") }
        do {
            try server.start()
        } catch {
            logger.critical("\(error)")
            throw ExitCode(2)
        }
        // Tests and scripts read the real port from this line.
        print("snapboard-server listening on \(options.tls == nil ? "http" : "https")://\(host):\(server.port)")
        fflush(nil)

        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let signals = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for source in signals {
            source.setEventHandler {
                logger.notice("draining: /healthz answers 503, pending gestures commit, connections close with 1001")
                server.requestShutdown()
            }
            source.resume()
        }
        // Without this, an optimised build may release the sources as soon as they are resumed, and
        // SIGTERM, ignored above, would then do nothing at all.
        withExtendedLifetime((signals, lock)) { server.run() }
        logger.notice("stopped")
    }

    /// `--conformance-echo`: the conformance suite's echo server on these options' address and WebSocket
    /// settings, instead of the server; it stores nothing and runs until SIGINT or SIGTERM.
    private func runEcho(_ options: ServerOptions, logger: Logger) throws {
        let echo = EchoServer(host: options.host, port: options.port, eventLoop: options.eventLoop, maxMessageBytes: options.maxMessageBytes,
                              pingSeconds: options.pingSeconds, idleTimeoutSeconds: options.idleTimeoutSeconds)
        do {
            try echo.start()
        } catch {
            logger.critical("\(error)")
            throw ExitCode(2)
        }
        print("snapboard-server conformance echo listening on http://\(options.host):\(echo.port)")
        fflush(nil)
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let signals = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for source in signals {
            source.setEventHandler { echo.stop() }
            source.resume()
        }
        withExtendedLifetime(signals) { echo.run() }
    }
}
