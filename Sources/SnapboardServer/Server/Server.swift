import CLibWebSockets
import Foundation
import Logging
import SnapboardAuth
import SnapboardLock
import SnapboardLWS
import SnapboardRoom
import SnapboardStore
import SnapboardWeb

/// One shard of the Snapboard server (`Shards`): one libwebsockets context whose service thread owns
/// every socket, room and outbox of its canvases. Other threads talk to it only through hand-overs:
/// `requestShutdown()` is a `perform` on the context, the journal's thread posts `StorageEvent`s that the
/// service thread takes when woken, and a sharded server's acceptor hands it sockets to adopt. The store
/// is only ever called on the journal's thread, so blocking disk work never runs here.
///
/// The callback (`Server+Callback.swift`) hands each libwebsockets event to the file of its concern:
/// sessions (`Server+Sessions.swift`), HTTP (`HTTP/`), admission (`Admission/`), the lifecycle and the
/// tick (`Server+Lifecycle.swift`).
///
/// `@unchecked Sendable` because of those hand-overs: everything else is touched only on the thread that
/// calls `run()`.
public final class Server: @unchecked Sendable {
    public internal(set) var options: ServerOptions
    let logger: Logger
    let metrics = RoomMetrics()
    let startedAt = ContinuousClock.now
    let context: LWSContext
    /// The storage thread: loads, and writes with group commit, in the order they were asked for. The
    /// shards share it; `Shards` starts and stops it.
    let journal: Journal
    let storageEvents: StorageHandover
    /// Where this server sits among the shards; nil when it is the only one (and listens itself).
    let shard: ShardPlace?
    /// The process's servers, for what they share: set by `Shards` before `start()`.
    weak var group: Shards?
    let registry: RoomRegistry
    /// The browser client, read once at start.
    let web: WebAssets
    /// The Origin and Host policy in force: the options', with loopback names only for a loopback server
    /// that lists no hosts.
    let origins: OriginPolicy
    /// Keeps closed sockets whose peer is still sending open a little, so the close frame is read
    /// before the kernel would answer the unread data with a reset.
    let lingerer = Lingerer()

    /// Where the server is in its life, from made to stopped.
    var phase = ServerPhase.created
    /// The port the server listens on, once `start()` returned.
    public internal(set) var port = 0
    /// The tick's length, stretched while the service thread is busy.
    var pacer: TickPacer
    /// The phase of the tick that runs next (`RoomRegistry.phases`).
    var tickPhase = 0
    /// Microseconds by which the last phases' writes overran their share of the tick, taken off the next waits.
    var tickOverrun = 0
    /// When the tick last closed sessions whose token expired.
    var lastExpiryCheck = 0.0
    /// When the tick last gave freed memory back, and how many canvases had been unloaded (and connections
    /// shed) by then.
    var lastTrim = (at: 0.0, unloads: 0, shed: 0)
    /// Connections the server closed for what they made it hold (1008, 1009, 4000): their memory is free,
    /// and the tick hands it back.
    var shedConnections = 0
    /// The outboxes that became ready since the last tick or handover, by their socket's key and their
    /// connection's id: written when the next one ends (`writingAtOnce`).
    var readyToWrite: [(key: Int, id: Int)] = []
    /// The outboxes `writingAtOnce` is writing, taken from `readyToWrite`; empty otherwise, kept for its capacity.
    var writing: [(key: Int, id: Int)] = []
    /// Bytes held in unfinished messages on this service thread, and the connections holding them, by id.
    var unfinishedBytes = 0
    var unfinishedConnections: [Int: Connection] = [:]

    /// Per-socket state, by `LWSSocket.key`.
    var sockets: [Int: SocketState] = [:]
    var nextConnection = 1
    var connectionsOpened = 0
    var connectionCount = 0
    /// HTTP requests whose body has been read, by socket key, until the next request on the connection.
    var bodiesCompleted: Set<Int> = []
    /// Heavy reads waiting for a reader thread, by socket key: set when the client leaves (`answerFromReader`).
    var abandonedReads: [Int: Locked<Bool>] = [:]
    /// Request bodies being received, by socket key (`Server+Uploads.swift`).
    var uploads: [Int: Upload] = [:]
    /// HTTP requests waiting for an answer from the journal's thread, by socket key.
    var awaitingStore: [Int: LWSSocket] = [:]

    /// Requests refused before they reached a canvas, by reason (`/metrics`).
    var refusals: [String: Int] = [:]
    /// Each IP address with open WebSockets, and each session's address (an integer lookup on every op).
    var peers: [String: PeerState] = [:]
    var sessionPeers: [Int: PeerState] = [:]
    /// Open WebSockets by canvas, counted from the upgrade (before the canvas has loaded), for the limit.
    var canvasConnections: [String: Int] = [:]
    /// File descriptors the process may open, and the reserve kept free; set in `start()`.
    var descriptors = DescriptorBudget(limit: 1024)
    /// Bounds the connection events a peer can cause by connecting over and over.
    var connectionLog = LogLimiter(burst: 200, interval: 1)
    /// Bounds the warnings about running out of descriptors, which a peer can cause.
    var descriptorLog = LogLimiter(burst: 1, interval: 10)

    /// A cluster node's lease is fresh: only then may it own canvases and ack (`Server+Ownership.swift`).
    /// Always true on a store that is not shared.
    var leaseFresh = true
    /// Times the lease stopped being fresh since the server started.
    var leaseLapses = 0
    /// When the tick last compared the lease with the store's own view of it.
    var lastLeaseCheck = 0.0
    /// The owners found on the way in for connections being adopted (another node's canvas), by descriptor,
    /// when, and the request line's query as the client sent it (libwebsockets ends a decoded query at a
    /// control character: the redirect is written from this one instead).
    var movedTo: [Int32: (owner: NodeIdentity, at: Double, query: String?)] = [:]

    init(options: ServerOptions, journal: Journal, shard: ShardPlace?, logger: Logger) {
        self.options = options
        self.logger = logger
        self.journal = journal
        self.shard = shard
        pacer = TickPacer(minimum: options.tickMilliseconds, maximum: options.maxTickMilliseconds)
        var origins = options.origins
        if origins.allowedHosts.isEmpty, OriginPolicy.isLoopback(options.host) { origins.allowedHosts = OriginPolicy.loopbackHosts }
        self.origins = origins
        context = LWSContext(role: shard == nil ? .server(host: options.host, port: options.port) : .adopting, eventLoop: options.eventLoop)
        context.keepalive = (options.pingSeconds, options.idleTimeoutSeconds)
        context.handshakeTimeout = options.limits.handshakeSeconds
        context.tls = options.tls.map { .server(certificate: $0.certificate, privateKey: $0.privateKey) }
        storageEvents = StorageHandover(context: context)
        registry = RoomRegistry(journal: journal, canvasDefaults: options.canvas, roomConfig: options.room, metrics: metrics,
                                logger: logger, tickPhases: options.tickPhases, post: storageEvents.post)
        let webRoot = options.webRoot.map { URL(fileURLWithPath: $0) } ?? WebAssets.shippedDirectory
        web = WebAssets(directory: webRoot)
        if web.isEmpty {
            logger.warning("no browser client files in \(webRoot.path): / and /c/{canvas} answer 404 (see --web-root)")
        }
        context.handler = self
        registry.admitOp = { [unowned self] session, cost, now in admitOp(from: session, cost: cost, now: now) }
        registry.mayCreate = { [unowned self] in group?.canvasQuota.reserve() ?? true }
        registry.onDropped = { [unowned self] canvas in roomDropped(canvas) }
        registry.releaseCanvas = { [unowned self] id in
            guard group?.shared != nil else { return }
            let logger = self.logger
            journal.release(id) { result in
                if case .failure(let error) = result { logger.warning("cannot give an idle canvas up", metadata: ["canvas": "\(id)", "error": "\(error)"]) }
            }
        }
    }

    /// Seconds since the server started, on a monotonic clock: the rooms' notion of now.
    var now: Double {
        let d = ContinuousClock.now - startedAt
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Logs a connection's opening or closing at `info`, unless peers caused more than 200 such lines in the
    /// last second: then they are counted, and the next one written says how many were left out.
    func logConnectionEvent(_ message: String, _ metadata: @autoclosure () -> Logger.Metadata) {
        guard logger.logLevel <= .info else { return }
        for line in connectionLog.admit(message, now: now) {
            if line == message { logger.info("\(message)", metadata: metadata()) } else { logger.notice("\(line)") }
        }
    }

    /// What libwebsockets logs at the server's level: its errors and warnings, its notices from `debug`, and
    /// its info lines from `trace`.
    static func libwebsocketsLogMask(_ level: Logger.Level) -> Int32 {
        switch level {
        case .trace: Int32(LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_INFO)
        case .debug: Int32(LLL_ERR | LLL_WARN | LLL_NOTICE)
        default: Int32(LLL_ERR | LLL_WARN)
        }
    }
}
