import ArgumentParser
import Foundation
import SnapboardServer

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

    @Option(help: "Canvases this node stores before a join or POST that would create another is refused (SNAPBOARD_MAX_STORED_CANVASES).")
    var maxStoredCanvases = Int(env("MAX_STORED_CANVASES") ?? "") ?? 100_000

    @Option(help: "Shapes a new canvas may hold before snaps get canvas_full (SNAPBOARD_MAX_SHAPES).")
    var maxShapes = Int(env("MAX_SHAPES") ?? "") ?? 100_000

    @Option(help: "Seconds a connection may take over its TLS and HTTP handshake (SNAPBOARD_HANDSHAKE_TIMEOUT).")
    var handshakeTimeout = Int(env("HANDSHAKE_TIMEOUT") ?? "") ?? 10

    @Option(help: "Ops all sessions from one IP address may send per second together before rate_limited (SNAPBOARD_OPS_PER_SECOND_PER_IP).")
    var opsPerSecondPerIp = Double(env("OPS_PER_SECOND_PER_IP") ?? "") ?? 100_000

    @Option(help: "Bytes an HTTP request body (canvas settings, an import) may hold before it gets 413 (SNAPBOARD_MAX_REQUEST_BODY).")
    var maxRequestBody = Int(env("MAX_REQUEST_BODY") ?? "") ?? 64 << 20

    @Option(help: "Bytes all unfinished WebSocket messages may hold together before one more gets too_large (SNAPBOARD_MAX_UNFINISHED_BYTES).")
    var maxUnfinishedBytes = Int(env("MAX_UNFINISHED_BYTES") ?? "") ?? 64 << 20

    @Option(help: "Request bodies received at once before a POST or PUT gets 503 (SNAPBOARD_MAX_UPLOADS).")
    var maxUploads = Int(env("MAX_UPLOADS") ?? "") ?? 64

    @Option(help: "Request bodies received at once from one IP address before its POST or PUT gets 429 (SNAPBOARD_MAX_UPLOADS_PER_IP).")
    var maxUploadsPerIp = Int(env("MAX_UPLOADS_PER_IP") ?? "") ?? 8

    @Option(help: "Bytes the request bodies being received may declare together before a POST or PUT gets 503 (SNAPBOARD_MAX_UPLOAD_MEMORY).")
    var maxUploadMemory = Int(env("MAX_UPLOAD_MEMORY") ?? "") ?? 128 << 20

    @Option(help: "Bytes a second a request body must average after 10 s, else 408 and a close (SNAPBOARD_MIN_UPLOAD_RATE).")
    var minUploadRate = Int(env("MIN_UPLOAD_RATE") ?? "") ?? 16 << 10

    @Option(help: "Threads serving exports, past states and history pages, each on its own read-only connection (SNAPBOARD_READ_WORKERS).")
    var readWorkers = Int(env("READ_WORKERS") ?? "") ?? 2

    @Option(help: "Exports, past states and history pages waiting for a reader thread before one more gets 503 (SNAPBOARD_MAX_QUEUED_READS).")
    var maxQueuedReads = Int(env("MAX_QUEUED_READS") ?? "") ?? 8

    @Option(help: "Exports, past states and history pages one IP address may start a second before 429 (SNAPBOARD_READS_PER_SECOND_PER_IP).")
    var readsPerSecondPerIp = Double(env("READS_PER_SECOND_PER_IP") ?? "") ?? 10

    @Option(help: "Exports, past states and history pages one access token may start a second before 429 (SNAPBOARD_READS_PER_SECOND_PER_TOKEN).")
    var readsPerSecondPerToken = Double(env("READS_PER_SECOND_PER_TOKEN") ?? "") ?? 10

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
        l.storedCanvases = maxStoredCanvases
        l.handshakeSeconds = handshakeTimeout
        l.opsPerSecondPerIP = opsPerSecondPerIp
        l.requestBodyBytes = maxRequestBody
        l.uploads = maxUploads
        l.uploadsPerIP = maxUploadsPerIp
        l.uploadMemoryBytes = maxUploadMemory
        l.minUploadBytesPerSecond = minUploadRate
        l.readWorkers = readWorkers
        l.queuedReads = maxQueuedReads
        l.readsPerSecondPerIP = readsPerSecondPerIp
        l.readsPerSecondPerToken = readsPerSecondPerToken
        l.unfinishedMessageBytes = maxUnfinishedBytes
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
