import Foundation
import Logging
import SnapboardLWS
import SnapboardProtocol
import SnapboardStore
import SnapboardWeb
import SnapboardLock

#if canImport(Glibc)
import Glibc
#endif

/// The Snapboard server on one core or several (`--shards`): N servers, each a libwebsockets service
/// thread with its own rooms, sharing one journal. Each canvas belongs to one shard, chosen by a hash of
/// its id, and each connection is placed on its canvas's shard before libwebsockets reads it: the
/// `Acceptor` peeks at the request line and the shard adopts the socket. Nothing crosses threads per op.
///
/// With one shard there is no acceptor: the server listens itself, as it always has.
public final class Shards: @unchecked Sendable {
    public let servers: [Server]
    let journal: Journal
    /// The listening socket of a sharded server, set in `start()`.
    private var acceptor: Acceptor?
    private let logger: Logger
    /// Bounds the warnings about running out of descriptors, which a peer can cause (acceptor thread only).
    private var descriptorLog = LogLimiter(burst: 1, interval: 10)
    /// Open WebSockets across the shards, for the limits the whole server enforces.
    let admissions = Locked(Admissions())
    /// The canvases this node stores, against `--max-stored-canvases`.
    let canvasQuota: CanvasQuota
    /// Heavy reads' threads, each with a read-only connection of its own; made in `start()`.
    private(set) var reads: ReadPool?
    /// Heavy reads per address and per token.
    let readLimits: ReadLimits
    /// The request bodies being received, against the upload limits.
    let uploads: UploadBudget
    private let store: CanvasStore
    /// The store when it is shared by the nodes of a cluster (PostgreSQL): each canvas has one owner, and
    /// before libwebsockets reads a connection for a canvas the store says whether another node holds it
    /// (`route`; nothing is claimed), so that an upgrade for another node's canvas can be answered 421 with
    /// where it lives.
    let shared: SharedCanvasStore?
    /// Checkpoints of a drain queued by this many shards so far: the last one queues `Journal.leave`.
    private let drained = Locked(0)
    /// Connections the acceptor answered 503 for want of descriptors.
    let acceptorRefusals = Locked(0)
    /// Failed admin authentications by address, across the shards.
    let adminGuard = Locked(AdminGuard())
    /// The page for a `/c/` path with no valid canvas name, which the acceptor answers itself when the raw
    /// path is not canonical (`route`).
    private let badCanvasPage: WebAssets.Asset?
    /// Round-robin for requests that name no canvas (the page, `/healthz`, `/metrics`).
    private var nextAnywhere = 0
    private var budget = DescriptorBudget(limit: 1024)

    public init(options: ServerOptions, store: CanvasStore = MemoryCanvasStore(), logger: Logger = Logger(label: "snapboard")) {
        let count = max(1, options.shards)
        self.logger = logger
        // Counted once, here, before any thread uses the store; creations and deletions keep it since.
        canvasQuota = CanvasQuota(limit: options.limits.storedCanvases, stored: (try? store.canvases().count) ?? 0)
        readLimits = ReadLimits(perIP: options.limits.readsPerSecondPerIP, perToken: options.limits.readsPerSecondPerToken)
        self.store = store
        shared = store as? SharedCanvasStore
        uploads = UploadBudget(maxUploads: options.limits.uploads, maxUploadsPerIP: options.limits.uploadsPerIP,
                               maxBytes: options.limits.uploadMemoryBytes)
        let router = StorageRouter()
        let journal = Journal(store: store) { report in router.route(report) }
        self.journal = journal
        let servers = (0..<count).map { index in
            // A cluster node always has an acceptor, even on one shard: it claims each connection's canvas first.
            Server(options: options, journal: journal, shard: count == 1 && !(store is SharedCanvasStore) ? nil : ShardPlace(index: index, count: count),
                   logger: logger)
        }
        router.targets = servers.map(\.storageEvents)
        self.servers = servers
        badCanvasPage = servers[0].web.badCanvasPage(for: "/c/")
        for server in servers { server.group = self }
    }

    /// The port the server listens on, once `start()` returned.
    public var port: Int { acceptor?.port ?? servers[0].port }

    /// Binds the listening socket and opens every shard's context (each is then served by the thread
    /// `run()` gives it). Call on the thread that will call `run()`.
    public func start() throws {
        if servers.count > 1 || shared != nil {
            let options = servers[0].options
            guard options.tls == nil else {
                throw AcceptorError(shared != nil ? "a cluster node (--database-url) serves plain HTTP: terminate TLS in front of it"
                                                  : "--shards needs plain HTTP: terminate TLS in front of a sharded server")
            }
            // Before the contexts: libwebsockets sizes its table of descriptors from the limit as it is then.
            budget = DescriptorBudget.raised()
            acceptor = try Acceptor(host: options.host, port: options.port, handshakeSeconds: options.limits.handshakeSeconds)
        }
        let limits = servers[0].options.limits
        let reads = ReadPool(stores: try (0..<limits.readWorkers).map { _ in try store.readOnlyConnection() }, queueLimit: limits.queuedReads)
        self.reads = reads
        for server in servers { try server.start() }
        if let shared {
            // Renewed on the store's own thread; each shard hears of a change on its service thread.
            let servers = self.servers
            try shared.startLease { fresh in
                for server in servers { server.context.perform { server.leaseChanged(fresh: fresh) } }
            }
            let fresh = shared.leaseIsFresh
            for server in servers { server.context.perform { server.leaseChanged(fresh: fresh) } }
            logger.notice("cluster node \(shared.node.id): clients are sent here as \(shared.node.address)")
        }
        journal.start()
        reads.start()
    }

    /// A cluster node's shard queued its drain's checkpoints: once every shard has, this node gives its
    /// canvases up (`Journal.leave`, after those checkpoints), so that other nodes may take them at once,
    /// and then every shard closes its sessions with 1001.
    func shardCheckpointed() {
        let count = servers.count
        let all = drained.withLock { n -> Bool in
            n += 1
            return n == count
        }
        guard all else { return }
        let (logger, shards) = (self.logger, self.servers)
        journal.leave { result in
            if case .failure(let error) = result { logger.error("cannot give this node's canvases up", metadata: ["error": "\(error)"]) }
            else { logger.notice("left the cluster: this node's canvases are free for the others") }
            for server in shards { server.context.perform { server.askSessionsToClose() } }
        }
    }

    /// Serves until a shutdown completes: shard 0 on the calling thread, the others and the acceptor on
    /// threads of their own. Then the journal finishes what it was given.
    public func run() {
        let finished = DispatchSemaphore(value: 0)
        for server in servers.dropFirst() {
            let thread = Thread {
                server.run()
                finished.signal()
            }
            thread.name = "snapboard-shard-\(server.shard?.index ?? 0)"
            thread.start()
        }
        if let acceptor {
            let accepting = Thread { [self] in acceptor.run(admit: admit, route: route) }
            accepting.name = "snapboard-acceptor"
            accepting.start()
        }
        servers[0].run()
        for _ in servers.dropFirst() { finished.wait() }
        acceptor?.stop()
        journal.stop()
        reads?.stop()
    }

    /// Asks every shard to stop: safe from any thread, including a signal-handling one.
    public func requestShutdown() {
        for server in servers { server.requestShutdown() }
    }

    /// A connection the acceptor just took: refused (answered 503 and closed) when it leaves fewer
    /// descriptors free than the reserve.
    private func admit(_ fd: Int32) -> Bool {
        guard budget.exhausted(by: fd) else { return true }
        Server.answerOutOfDescriptors(fd)
        close(fd)
        acceptorRefusals.withLock { $0 += 1 }
        for line in descriptorLog.admit("out of file descriptors (limit \(budget.limit)): new connections are answered 503",
                                        now: Acceptor.monotonicSeconds()) {
            logger.warning("\(line)")
        }
        return false
    }

    /// Hands a connection to the shard of the canvas its path names, or to the next shard in turn.
    private func route(_ fd: Int32, path: String?) {
        if let path, !RequestPath.isCanonical(path) {
            // Refused here, where the raw path is seen: the shard would see it decoded and normalised. A
            // page address (`/c/bad%20name`) is a person's typo: they get the page that says what is wrong.
            if path.hasPrefix("/c/"), let page = badCanvasPage { Server.answerBadCanvas(fd, page) } else { Server.answerNonCanonical(fd) }
            Acceptor.drainAndClose(fd)
            return
        }
        let canvas = path.flatMap { APIEndpoint(path: $0).canvas }
        let index: Int
        if let canvas {
            index = Self.owner(of: canvas, among: servers.count)
        } else {
            index = nextAnywhere
            nextAnywhere = (nextAnywhere + 1) % servers.count
        }
        let server = servers[index]
        // The query as sent, for a redirect to another node (libwebsockets ends a decoded one at a control character).
        let query = canvas != nil && shared != nil ? Acceptor.requestQuery(fd) : nil
        let handed = server.context.perform {
            if let canvas, server.group?.shared != nil { server.adopt(fd, claiming: canvas, query: query) } else { _ = server.context.adopt(fd) }
        }
        if !handed { close(fd) }  // that shard has stopped
    }

    /// Which of `count` shards owns canvas `id`: FNV-1a of its bytes, so every run places it the same way.
    public static func owner(of id: String, among count: Int) -> Int {
        guard count > 1 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return Int(hash % UInt64(count))
    }
}
