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
