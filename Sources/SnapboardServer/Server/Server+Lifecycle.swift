import CSnapboardLWS
import Foundation
import SnapboardLWS
import SnapboardProtocol

extension Server {
    /// Binds the listening socket (or, as a shard, gets ready to adopt sockets). Call on the thread that
    /// will call `run()`.
    public func start() throws {
        let asked = options.eventLoop
        // Before the context: libwebsockets sizes its table of descriptors from the limit as it is then.
        descriptors = DescriptorBudget.raised()
        try context.open(logLevel: Self.libwebsocketsLogMask(logger.logLevel))
        if context.eventLoop != asked {
            // The libev plugin (libwebsockets-evlib-ev) is missing: poll() serves the same, at more CPU.
            logger.warning("cannot start libwebsockets on \(asked.rawValue); serving on poll")
            options.eventLoop = context.eventLoop
        }
        if shard == nil { port = context.listenPort }
        phase = .serving
        context.schedule(after: options.tickMilliseconds * 1000)
    }

    /// Serves until a shutdown completes, then lets queued writes finish before the process may exit.
    public func run() {
        context.run()
        phase = .stopped
        lingerer.stop()
    }

    /// Asks the server to stop: safe from any thread, including a signal-handling one.
    public func requestShutdown() {
        context.perform { [self] in beginShutdown() }
    }

    /// The first step of a shutdown: `/healthz` fails and upgrades are refused from now on; the sessions
    /// close once `--drain-seconds` have passed (at once by default), in the tick.
    private func beginShutdown() {
        guard !phase.isShuttingDown else { return }
        phase = .draining(since: now)
        if options.drainSeconds <= 0 { closeEverySession() }
    }

    /// Commits every gesture in progress while everyone is still there to be told, then closes every session.
    private func closeEverySession() {
        guard case .draining(let since) = phase else { return }
        phase = .closing(since: since)
        registry.commitEverything(now: now)
        if let group, group.shared != nil {
            // In a cluster the node gives its canvases up once every shard's checkpoints are written, and
            // only then closes its sessions: their clients reconnect to nodes that may take them at once.
            group.shardCheckpointed()
        } else {
            askSessionsToClose()
        }
    }

    /// The last step of a shutdown: every session is asked to close with 1001.
    func askSessionsToClose() {
        for case .websocket(let conn) in sockets.values {
            conn.outbox.requestClose(code: CloseCode.goingAway, reason: "server shutting down")
        }
    }

    /// One phase of the tick: the live deltas of the phase's canvases (`RoomRegistry.phases`), then, once per
    /// tick, lease expiry, idle unloading, expired tokens, memory handed back, and the steps of a shutdown.
    /// Schedules the next phase unless the server stopped.
    func tick() {
        let now = self.now
        let phase = tickPhase
        tickPhase = (phase + 1) % registry.phases
        let writing = writingAtOnce { registry.tick(phase: phase, now: now, idleSeconds: options.idleUnloadSeconds) }
        if phase == 0, !tickOnce(now: now) { return }
        // The period counts the tick's own work, not the writes of its frames: `TickPacer` alone stretches it.
        // Writes longer than a phase's share of it are taken off the waits of the tick's next phases, not of
        // the next tick's: a tick whose writes take longer than the period stretches as a whole.
        let period = pacer.next(wall: now, cpu: TickPacer.threadCPUSeconds()) * 1000
        let wait = period / registry.phases - Int(writing * 1_000_000) - tickOverrun
        tickOverrun = tickPhase == 0 ? 0 : max(0, -wait)
        context.schedule(after: max(1, wait))
    }

    /// What the tick does once, not in each phase. False once the server stopped: no tick follows.
    private func tickOnce(now: Double) -> Bool {
        if !uploads.isEmpty { expireUploads(now: now) }
        if options.tokens != nil, now - lastExpiryCheck >= 1 {
            lastExpiryCheck = now
            closeExpiredSessions()
        }
        closeStaleUnfinished()
        if let shared = group?.shared, now - lastLeaseCheck >= 0.25 {
            // The lease thread reports each change, but reports decided on two threads may arrive out of
            // order: what the store says now settles it.
            lastLeaseCheck = now
            let fresh = shared.leaseIsFresh
            if fresh != leaseFresh { leaseChanged(fresh: fresh) }
        }
        if registry.unloads > lastTrim.unloads || shedConnections > lastTrim.shed, now - lastTrim.at >= 10 {
            // Unloaded canvases, and connections closed for what they made the server hold, leave their
            // memory free but scattered in glibc's heap, which keeps it: the trim hands those pages back, at
            // most once per 10 s.
            lastTrim = (now, registry.unloads, shedConnections)
            snapboard_malloc_trim()
        }
        if case .draining(let since) = phase, now - since >= options.drainSeconds { closeEverySession() }
        if case .closing(let since) = phase, group?.shared != nil, now - since >= options.drainSeconds + 1, connectionCount > 0 {
            // A cluster node that could not leave within a second (the database is away) closes its sessions
            // anyway, while there is time for their close frames.
            askSessionsToClose()
        }
        if case .closing(let since) = phase,
           (connectionCount == 0 && journal.backlog == 0) || now - since > options.drainSeconds + options.shutdownGraceSeconds {
            context.stop()
            return false
        }
        return true
    }

    /// A session lives no longer than its token: it is closed with 4001 once `exp` passes, and the client
    /// reconnects with a fresh token.
    private func closeExpiredSessions() {
        let wall = Date().timeIntervalSince1970
        for case .websocket(let conn) in sockets.values {
            guard let expires = conn.tokenExpires, expires <= wall, conn.outbox.close == nil else { continue }
            conn.outbox.requestClose(code: CloseCode.tokenExpired, reason: "token expired")
        }
    }
}
