import ArgumentParser
import Dispatch
import Foundation
import Logging
import SnapboardAuth
import SnapboardCore
import SnapboardLWS
import SnapboardServer
import SnapboardStore
import SnapboardLWSClient

/// `snapboard-server`: serves canvases (the default subcommand), and exports or imports one as JSON.
@main
struct SnapboardServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapboard-server",
        abstract: "Serves Snapboard canvases over WebSockets; exports and imports them.",
        subcommands: [Serve.self, Export.self, Import.self, Token.self, Health.self],
        defaultSubcommand: Serve.self)

    /// `snapboard-server --help` shows what serving takes, every option with it, since serving is what the
    /// command does when given no subcommand; then the other subcommands. (ArgumentParser would list only
    /// the subcommands.)
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] else {
            main(nil)
            return
        }
        print(helpMessage(for: Serve.self).replacingOccurrences(of: "snapboard-server serve", with: "snapboard-server [serve]"))
        print("""

            OTHER SUBCOMMANDS:
              export                  \(Export.configuration.abstract)
              import                  \(Import.configuration.abstract)
              token                   \(Token.configuration.abstract)
              health                  \(Health.configuration.abstract)

              See 'snapboard-server help <subcommand>' for their options.
            """)
    }
}

/// Where canvases are kept, shared by every subcommand.
struct StorageOptions: ParsableArguments {
    @Option(help: "SQLite file canvases are kept in, or :memory: (SNAPBOARD_DATA).")
    var data = env("DATA") ?? "./data/snapboard.sqlite"

    @Option(help: "full (survives power loss) or normal (survives a crash of the process) (SNAPBOARD_DURABILITY).")
    var durability = env("DURABILITY") ?? "full"

    @Option(help: ArgumentHelp("For tests: while this file exists, every write fails, as on a full disk.", visibility: .hidden))
    var faultFile: String?

    func validate() throws {
        guard SQLiteCanvasStore.Durability(rawValue: durability) != nil else { throw ValidationError("--durability is full or normal") }
    }

    /// The data file's lock, for a server or an import (nil for `:memory:`); throws when another one has it.
    func lock() throws -> DataFileLock? {
        guard data != ":memory:" else { return nil }
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: data).deletingLastPathComponent(), withIntermediateDirectories: true)
        return try DataFileLock(databasePath: data)
    }

    func open() throws -> CanvasStore {
        if data == ":memory:" { return MemoryCanvasStore() }
        let store = try SQLiteCanvasStore(path: data, durability: SQLiteCanvasStore.Durability(rawValue: durability) ?? .full)
        return faultFile.map { FaultInjectingStore(wrapping: store, faultFile: $0) } ?? store
    }
}

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

    /// The numeric `SNAPBOARD_*` variables: one that is set but does not parse stops the server, instead of
    /// being ignored for the default.
    static let wholeNumberVariables = [
        "PORT", "TICK_MS", "MAX_TICK_MS", "MAX_MESSAGE_BYTES", "MAX_QUEUED_BYTES", "SEND_BUFFER_BYTES", "CHECKPOINT_EVERY",
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
        guard (1...64).contains(shards) else { throw ValidationError("--shards must be 1...64") }
        guard shards == 1 || limits.tlsFiles == nil else {
            throw ValidationError("--shards needs plain HTTP: the acceptor reads each request's path to place it, which TLS hides (terminate TLS in front, see README \"Using more than one core\")")
        }
        guard EventLoop(rawValue: eventLoop) != nil else { throw ValidationError("--event-loop is poll or libev") }
        guard maxMessageBytes >= 256 else { throw ValidationError("--max-message-bytes must be at least 256") }
        guard (1...3600).contains(pingSeconds), pingSeconds < idleTimeout, idleTimeout <= 7200 else {
            throw ValidationError("--ping-seconds must be 1...3600 and less than --idle-timeout (at most 7200)")
        }
        if let problem = canvasConfig.problem { throw ValidationError("canvas defaults: \(problem)") }
        try limits.check()
        if !access.requiresTokens, !OriginPolicy.isLoopback(host), !access.insecureOpen {
            throw ValidationError("""
                refusing to serve \(host) with no access control: anyone who reaches it could read, change and wipe \
                every canvas. Give --auth-secret or --auth-public-key (see README, "Access control"), or \
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
        options.sendBufferBytes = sendBufferBytes ?? Int(env("SEND_BUFFER_BYTES") ?? "")
        do {
            options.tokens = try access.verifier()
        } catch {
            logger.critical("\(error)")
            throw ExitCode(2)
        }
        options.adminToken = access.adminToken
        options.origins = OriginPolicy(allowedOrigins: access.origins, allowedHosts: access.hosts)
        options.limits = limits.serverLimits
        options.tls = limits.tlsFiles
        options.conformanceEcho = limits.conformanceEcho
        if let tokens = options.tokens {
            logger.notice("access: tokens required (\(tokens.algorithms.joined(separator: ", ")))")
        } else if OriginPolicy.isLoopback(host) {
            logger.notice("access: open, no token required: anyone on this machine may read and edit every canvas")
        } else {
            logger.warning("access: OPEN (--insecure-open), no token required: anyone who reaches \(host) may read and edit every canvas")
        }
        let store: CanvasStore
        let lock: DataFileLock?
        do {
            lock = try storage.lock()
            store = try storage.open()
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
}

/// The value of `SNAPBOARD_<name>`, if set and not empty (compose files pass unset variables as "").
func env(_ name: String) -> String? {
    ProcessInfo.processInfo.environment["SNAPBOARD_" + name].flatMap { $0.isEmpty ? nil : $0 }
}

/// Writes one canvas, as recovered from its checkpoint and log, to JSON: a backup.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints a canvas as JSON (a snapshot that import takes back).",
        discussion: "Safe while the server runs; the export holds what was durable when it ran.")

    @OptionGroup var storage: StorageOptions

    @Option(help: "The canvas to export.")
    var canvas: String

    @Option(help: "Write to this file instead of standard output.")
    var output: String?

    func run() throws {
        let store = try storage.open()
        let stored = try store.load(canvas)
        guard stored.snapshot != nil || !stored.log.isEmpty else { throw ValidationError("no canvas \(canvas) in \(storage.data)") }
        let recovered = try stored.recovered(id: canvas, default: CanvasConfig())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let json = try encoder.encode(recovered.committedSnapshot)
        if let output {
            try json.write(to: URL(fileURLWithPath: output))
        } else {
            FileHandle.standardOutput.write(json + Data("\n".utf8))
        }
    }
}

/// Loads a canvas exported as JSON, replacing the stored canvas of the same id: a restore.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replaces a canvas with one exported as JSON.",
        discussion: "Run it while the server is stopped: it refuses to run while a server has the file, and a server does not start while it runs.")

    @OptionGroup var storage: StorageOptions

    @Option(help: "Read from this file instead of standard input.")
    var input: String?

    func run() throws {
        let data = try input.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } ?? FileHandle.standardInput.readDataToEndOfFile()
        let snapshot = try JSONDecoder().decode(CanvasSnapshot.self, from: data)
        if let problem = snapshot.problem { throw ValidationError("not a canvas export: \(problem)") }
        let lock = try storage.lock()
        try withExtendedLifetime(lock) { try storage.open().replace(with: snapshot) }
        print("imported canvas \(snapshot.id) at seq \(snapshot.seq) with \(snapshot.shapes.count) shapes")
    }
}

/// Who may connect: tokens, the admin token, origins and hosts.
struct AccessOptions: ParsableArguments {
    @Option(help: "Require HS256 tokens signed with this secret, 32 bytes or more (SNAPBOARD_AUTH_SECRET; prefer the variable, which ps does not show).")
    var authSecret: String?

    @Option(help: ArgumentHelp("Require ES256 or RS256 tokens signed with the private key of this PEM public key (SNAPBOARD_AUTH_PUBLIC_KEY).", valueName: "file"))
    var authPublicKey: String?

    @Option(name: .customLong("admin-token"), help: "Require this bearer token for /metrics, the canvas listing and changes over HTTP (SNAPBOARD_ADMIN_TOKEN).")
    var adminTokenFlag: String?

    @Option(help: "An Origin allowed to open WebSockets besides the server's own pages: https://app.example.com, *.example.com or * (repeatable; SNAPBOARD_ALLOWED_ORIGINS, comma-separated).")
    var allowedOrigin: [String] = []

    @Option(help: "A Host name the server answers: board.example.com or *.example.com (repeatable; SNAPBOARD_ALLOWED_HOSTS, comma-separated). Unset: any, or only loopback names when listening on loopback.")
    var allowedHost: [String] = []

    @Flag(help: "Serve a non-loopback address with no token required (SNAPBOARD_INSECURE_OPEN=1).")
    var insecureOpen = ["1", "true", "yes"].contains(env("INSECURE_OPEN")?.lowercased() ?? "")

    var secret: String? { authSecret ?? env("AUTH_SECRET") }
    var adminToken: String? { adminTokenFlag ?? env("ADMIN_TOKEN") }
    var publicKeyFile: String? { authPublicKey ?? env("AUTH_PUBLIC_KEY") }
    var requiresTokens: Bool { secret != nil || publicKeyFile != nil }
    var origins: [String] { allowedOrigin.isEmpty ? list(env("ALLOWED_ORIGINS")) : allowedOrigin }
    var hosts: [String] { allowedHost.isEmpty ? list(env("ALLOWED_HOSTS")) : allowedHost }

    /// The verifier for the configured secret and key; nil when neither is given (an open server).
    func verifier() throws -> TokenVerifier? {
        guard requiresTokens else { return nil }
        let pem = try publicKeyFile.map { try String(contentsOfFile: $0, encoding: .utf8) }
        return try TokenVerifier(secret: secret, publicKeyPEM: pem)
    }

    private func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// TLS, and how much the server takes on.
struct LimitOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Serve https:// and wss:// with this PEM certificate (or chain); needs --tls-key (SNAPBOARD_TLS_CERT).", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert (SNAPBOARD_TLS_KEY).", valueName: "file"))
    var tlsKey: String?

    @Option(help: "Open WebSockets in all before upgrades get 503 (SNAPBOARD_MAX_CONNECTIONS).")
    var maxConnections = Int(env("MAX_CONNECTIONS") ?? "") ?? 10_000

    @Option(help: "Open WebSockets from one IP address before its upgrades get 429 (SNAPBOARD_MAX_CONNECTIONS_PER_IP).")
    var maxConnectionsPerIp = Int(env("MAX_CONNECTIONS_PER_IP") ?? "") ?? 500

    @Option(help: "Open WebSockets on one canvas before its upgrades get 503 (SNAPBOARD_MAX_CONNECTIONS_PER_CANVAS).")
    var maxConnectionsPerCanvas = Int(env("MAX_CONNECTIONS_PER_CANVAS") ?? "") ?? 2_000

    @Option(help: "Canvases in memory at once before a join that would load another gets 503 (SNAPBOARD_MAX_CANVASES).")
    var maxCanvases = Int(env("MAX_CANVASES") ?? "") ?? 20_000

    @Option(help: "Shapes a new canvas may hold before snaps get canvas_full (SNAPBOARD_MAX_SHAPES).")
    var maxShapes = Int(env("MAX_SHAPES") ?? "") ?? 100_000

    @Option(help: "Seconds a connection may take over its TLS and HTTP handshake (SNAPBOARD_HANDSHAKE_TIMEOUT).")
    var handshakeTimeout = Int(env("HANDSHAKE_TIMEOUT") ?? "") ?? 10

    @Option(help: "Ops all sessions from one IP address may send per second together before rate_limited (SNAPBOARD_OPS_PER_SECOND_PER_IP).")
    var opsPerSecondPerIp = Double(env("OPS_PER_SECOND_PER_IP") ?? "") ?? 100_000

    @Option(help: "Bytes an HTTP request body (canvas settings, an import) may hold before it gets 413 (SNAPBOARD_MAX_REQUEST_BODY).")
    var maxRequestBody = Int(env("MAX_REQUEST_BODY") ?? "") ?? 64 << 20

    @Flag(help: ArgumentHelp("For the WebSocket conformance suite: an upgrade to / echoes every message back.", visibility: .hidden))
    var conformanceEcho = false

    var certificate: String? { tlsCert ?? env("TLS_CERT") }
    var key: String? { tlsKey ?? env("TLS_KEY") }

    var tlsFiles: (certificate: String, privateKey: String)? {
        guard let certificate, let key else { return nil }
        return (certificate, key)
    }

    var serverLimits: ServerLimits {
        var l = ServerLimits()
        l.connections = maxConnections
        l.connectionsPerIP = maxConnectionsPerIp
        l.connectionsPerCanvas = maxConnectionsPerCanvas
        l.canvases = maxCanvases
        l.handshakeSeconds = handshakeTimeout
        l.opsPerSecondPerIP = opsPerSecondPerIp
        l.requestBodyBytes = maxRequestBody
        return l
    }

    func check() throws {
        if let problem = serverLimits.problem { throw ValidationError(problem) }
        guard (0...1_000_000).contains(maxShapes) else { throw ValidationError("--max-shapes must be 0...1000000") }
        guard (certificate == nil) == (key == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        for file in [certificate, key].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("cannot read \(file)")
        }
    }
}

/// Asks a running server whether it is up: a health check that needs no curl in the image.
struct Health: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exits 0 when the server answers GET /healthz with ok, 1 otherwise (a container health check).",
        discussion: """
            A server started with SNAPBOARD_TLS_CERT (or given --tls-cert here) is asked over https, its \
            certificate verified against that file (or --ca-file) but not against the name 127.0.0.1.
            """)

    @Option(help: "The server's address (SNAPBOARD_HOST; 0.0.0.0 means this machine).")
    var host = env("HOST") ?? "127.0.0.1"

    @Option(help: "The server's port (SNAPBOARD_PORT).")
    var port = Int(env("PORT") ?? "") ?? 8080

    @Option(help: "Seconds to wait for the answer.")
    var timeout = 3

    @Option(help: ArgumentHelp("Ask over https: the server's certificate (SNAPBOARD_TLS_CERT), trusted as is.", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("Over https, trust the certificates in this PEM file instead (a CA's).", valueName: "file"))
    var caFile: String?

    func run() throws {
        let target = host == "0.0.0.0" || host.isEmpty ? "127.0.0.1" : host
        let certificate = tlsCert ?? env("TLS_CERT")
        do {
            let (status, body) = if let certificate {
                // The name on the certificate is the public one, not the address asked here: the chain is checked.
                try httpsGet(host: target, port: port, "/healthz", caFile: caFile ?? certificate, verifyName: false, timeout: Double(timeout))
            } else {
                try httpGet(host: target, port: port, "/healthz", timeout: timeout)
            }
            let text = String(decoding: body, as: UTF8.self)
            guard status == 200, text.contains(#""status":"ok""#) else {
                print("unhealthy: HTTP \(status) \(text)")
                throw ExitCode(1)
            }
            print(text)
        } catch let error as WebSocketError {
            print("unhealthy: \(error)")
            throw ExitCode(1)
        }
    }
}

/// Mints an HS256 access token, for development and scripts.
struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints an access token for a canvas (development and scripts).",
        discussion: "HS256, signed with --secret or SNAPBOARD_AUTH_SECRET (the secret the server was started with), or ES256/RS256 with --private-key.")

    @Option(help: "The canvas id, or a prefix ending in * (team-42-* grants every canvas starting team-42-; * grants all).")
    var canvas: String

    @Option(help: "editor or viewer.")
    var role = "editor"

    @Option(help: "How long the token lasts: 90s, 15m, 1h, 7d, or seconds.")
    var ttl = "1h"

    @Option(help: "Who the token is for (the presence identity, the token's sub).")
    var sub = "dev"

    @Option(help: "The display name others see (the token's name).")
    var name: String?

    @Option(help: "The HS256 secret (SNAPBOARD_AUTH_SECRET).")
    var secret: String?

    @Option(help: ArgumentHelp("Sign ES256 or RS256 with this PEM private key instead.", valueName: "file"))
    var privateKey: String?

    func validate() throws {
        guard AccessRole(rawValue: role) != nil else { throw ValidationError("--role is editor or viewer") }
        guard Self.seconds(ttl) != nil else { throw ValidationError("--ttl is a duration like 90s, 15m, 1h or 7d") }
        guard privateKey != nil || secret ?? env("AUTH_SECRET") != nil else {
            throw ValidationError("give --secret, set SNAPBOARD_AUTH_SECRET, or give --private-key")
        }
    }

    func run() throws {
        let signer = try privateKey.map { try TokenSigner(privateKeyPEM: String(contentsOfFile: $0, encoding: .utf8)) }
            ?? TokenSigner(secret: secret ?? env("AUTH_SECRET") ?? "")
        let expires = Date().timeIntervalSince1970 + (Self.seconds(ttl) ?? 3600)
        print(try signer.sign(AccessClaims(subject: sub, canvas: canvas, role: AccessRole(rawValue: role) ?? .editor, expires: expires, name: name)))
    }

    /// `90s`, `15m`, `1h`, `7d` or a number of seconds.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let unit = text.last.flatMap({ units[$0] }), let n = Double(text.dropLast()), n > 0 { return n * unit }
        return Double(text).flatMap { $0 > 0 ? $0 : nil }
    }
}
