import Logging
import SnapboardCore
import SnapboardRoom
import SnapboardStore

/// The canvases in memory: loads them from the journal (once, however many ask at the same time),
/// rolls a canvas back to its durable state when a write fails, and unloads idle ones.
///
/// Service thread only. It never waits for storage: it asks the journal, whose answers come back as
/// `StorageEvent`s through `post` (a hand-over to the service thread), and `handle` finishes the work.
final class RoomRegistry {
    private(set) var rooms: [String: Room] = [:]
    /// The tick comes in `phases` parts, each sending the live deltas of its share of the rooms
    /// (`Server.tick`): every room is ticked once per tick, and the writes of a tick are spread over it
    /// instead of coming in one burst, during which nothing is read.
    let phases: Int
    /// How many rooms each phase has: a room is made in the phase with the fewest (`Room.tickPhase`).
    private var phaseCounts: [Int]
    /// Handed to every room it makes: the server's per-address op budget (`Room.admitOp`).
    var admitOp: ((_ session: Int, _ cost: Double, _ now: Double) -> String?)?
    /// Asked once before a lookup creates a canvas that is not stored: false refuses the creation (the
    /// node's `--max-stored-canvases`), and the lookup finds `.full`.
    var mayCreate: () -> Bool = { true }
    /// Told of each room dropped because this node no longer owns its canvas (`Fenced`, `LeaseLost`, or a
    /// reload that found another owner): its sessions are the caller's to close, with 1012.
    var onDropped: (_ canvas: String) -> Void = { _ in }
    /// Asked to give canvas `id` up in a shared store (`Journal.release`), after an idle room's checkpoint.
    var releaseCanvas: (_ id: String) -> Void = { _ in }
    /// False while this node may not own canvases (its lease is not fresh): loads that finish meanwhile
    /// make no room, their waiters find `.unavailable`.
    var mayOwn = true
    /// Canvases whose room was dropped after a failed write: the journal refuses their entries until a
    /// `recovering` load, which their next load is.
    private var mustRecover: Set<String> = []
    /// Canvases whose load now in progress is a `recovering` one.
    private var recoveringLoads: Set<String> = []
    /// What waits for each canvas being loaded, and whether it would create the canvas.
    private var loading: [String: [(creating: Bool, ready: (Lookup) -> Void)]] = [:]
    private let journal: CanvasJournal
    private let canvasDefaults: CanvasConfig
    private let roomConfig: RoomConfig
    private let metrics: RoomMetrics
    private let logger: Logger
    private let post: @Sendable (StorageEvent) -> Void

    init(journal: CanvasJournal, canvasDefaults: CanvasConfig, roomConfig: RoomConfig, metrics: RoomMetrics,
         logger: Logger, tickPhases: Int = 1, post: @escaping @Sendable (StorageEvent) -> Void) {
        phases = max(1, tickPhases)
        phaseCounts = Array(repeating: 0, count: phases)
        self.journal = journal
        self.canvasDefaults = canvasDefaults
        self.roomConfig = roomConfig
        self.metrics = metrics
        self.logger = logger
        self.post = post
    }

    /// What a lookup found.
    enum Lookup {
        case room(Room)
        /// Not in storage, and not created: readers, and joins that may not create (a viewer's), ask that way.
        case absent
        /// Not in storage, and not created because the node stores as many canvases as it may.
        case full
        /// Storage failed, or the stored canvas fails the range checks (`damaged` says why).
        case unavailable(damaged: DamagedCanvas? = nil)
        /// Another node of the cluster owns the canvas (a shared store's `OwnedElsewhere`): the client is
        /// sent there (421 on an upgrade, 307 for HTTP).
        case elsewhere(NodeIdentity)
    }

    /// Canvases being loaded from the store now.
    var loadingCount: Int { loading.count }

    /// Canvases being created, replaced or deleted over HTTP: a lookup of one waits until storage is done.
    private var held: Set<String> = []

    /// True when canvas `id` is being loaded, created, replaced or deleted: an HTTP change to it must wait.
    func isBusy(_ id: String) -> Bool { loading[id] != nil || held.contains(id) }

    /// Holds lookups of `id` back until `release`; takes the canvas out of memory and returns it, if loaded.
    /// Its sessions are the caller's to close: the room is forgotten, not checkpointed.
    func hold(_ id: String) -> Room? {
        held.insert(id)
        let room = rooms[id]
        forget(id)
        return room
    }

    /// Lets lookups of `id` go on: those that came meanwhile load it from what storage now holds.
    func release(_ id: String) {
        held.remove(id)
        if loading[id] != nil { startLoading(id) }
    }

    /// Makes sure canvas `id` is loaded, creating it when it is not stored; `ready` runs once it is (at once
    /// if it is), with nil when it cannot be loaded or created.
    func withRoom(_ id: String, _ ready: @escaping (Room?) -> Void) {
        lookUp(id, creating: true) { lookup in
            if case .room(let room) = lookup { ready(room) } else { ready(nil) }
        }
    }

    /// Loads canvas `id` when it is stored, else creates it when `creating` (and `mayCreate` agrees); a
    /// lookup that may not create (a reader's, a viewer's join) of a canvas never stored finds `.absent`.
    /// `ready` runs once it is known (at once when the canvas is in memory).
    func lookUp(_ id: String, creating: Bool, _ ready: @escaping (Lookup) -> Void) {
        if let room = rooms[id] { return ready(.room(room)) }
        let first = loading[id] == nil
        loading[id, default: []].append((creating, ready))
        guard first, !held.contains(id) else { return }
        startLoading(id)
    }

    private func startLoading(_ id: String) {
        let post = self.post
        let recovering = mustRecover.contains(id)
        if recovering { recoveringLoads.insert(id) }
        let defaults = canvasDefaults, window = roomConfig.retainedDeltas, depth = roomConfig.undoDepth
        // Checked and replayed up to the resume window where it was read, off the service thread.
        journal.load(id, recovering: recovering) { result in
            post(.loaded(id, result.flatMap { stored in
                Result { try LoadedCanvas(stored, id: id, defaults: defaults, window: window, undoDepth: depth) }
            }))
        }
    }

    /// Finishes what storage reported.
    func handle(_ event: StorageEvent, now: Double) {
        switch event {
        case .loaded(let id, let result):
            finishLoading(id, result, now: now)
        case .reloaded(let id, let result):
            finishRecovery(id, result, now: now)
        case .durable(let seqs):
            for (canvas, seq) in seqs { rooms[canvas]?.durable(through: seq, now: now) }
        case .answered(let ops):
            for (canvas, some) in Dictionary(grouping: ops, by: \.canvas) { rooms[canvas]?.answersDurable(some, now: now) }
        case .failed(let canvases, let error) where error is Fenced || error is LeaseLost:
            // Another node owns these canvases now, or may by the time this one could write again: what the
            // rooms hold beyond what is durable is not this node's to save. Their clients reconnect, resend
            // what was not acked, and are sent to whoever owns the canvas then.
            for canvas in canvases.sorted() { drop(canvas, because: "\(error)") }
        case .failed(let canvases, let error):
            for canvas in canvases.sorted() { recover(canvas, after: error) }
        }
    }

    private func finishLoading(_ id: String, _ result: Result<LoadedCanvas, any Error>, now: Double) {
        let wasRecovering = recoveringLoads.remove(id) != nil
        if mustRecover.contains(id), !wasRecovering, loading[id] != nil {
            // Asked before a failed write dropped the room: the journal still refuses the canvas's entries,
            // so it is loaded again, recovering, for the same waiters.
            return startLoading(id)
        }
        let waiting = loading.removeValue(forKey: id) ?? []
        do {
            let loaded = try result.get(), stored = loaded.stored
            if wasRecovering { mustRecover.remove(id) }
            guard mayOwn || rooms[id] != nil else {
                // Claimed just as the lease stopped being fresh: no room until it is again.
                for waiter in waiting { waiter.ready(.unavailable()) }
                return
            }
            if rooms[id] == nil, stored.snapshot == nil, stored.log.isEmpty {
                let creating = waiting.contains(where: \.creating)
                guard creating, mayCreate() else {
                    if creating { logger.notice("canvas not created: the node stores as many as it may", metadata: ["canvas": "\(id)"]) }
                    for waiter in waiting { waiter.ready(creating ? .full : .absent) }
                    // A shared store's load claimed it: nothing here to keep, so another node may have it.
                    releaseCanvas(id)
                    return
                }
            }
            let isNew = rooms[id] == nil
            let room = rooms[id] ?? makeRoom(id, from: loaded, now: now)
            rooms[id] = room
            if isNew {
                logger.info("canvas loaded", metadata: [
                    "canvas": "\(id)", "seq": "\(room.canvas.seq)", "shapes": "\(room.canvas.count)",
                    // The commits after the checkpoint, which the room replayed: counted without copying the log.
                    "replayed": "\(room.canvas.seq - (stored.snapshot?.seq ?? 0))",
                ])
            }
            for waiter in waiting { waiter.ready(.room(room)) }
        } catch let moved as OwnedElsewhere {
            logger.info("canvas owned by another node", metadata: ["canvas": "\(id)", "owner": "\(moved.owner.id)"])
            for waiter in waiting { waiter.ready(.elsewhere(moved.owner)) }
        } catch let damaged as DamagedCanvas {
            // A recovering load lifts the journal's refusal before it reads, whatever it then finds.
            if wasRecovering { mustRecover.remove(id) }
            logger.error("canvas damaged: its stored data fails the range checks; not loaded", metadata: [
                "canvas": "\(id)", "reason": "\(damaged.reason)",
            ])
            for waiter in waiting { waiter.ready(.unavailable(damaged: damaged)) }
        } catch {
            logger.error("cannot load canvas", metadata: ["canvas": "\(id)", "error": "\(error)"])
            for waiter in waiting { waiter.ready(.unavailable()) }
        }
    }

    /// The room over a loaded canvas. Nothing the engine computes with comes in unchecked (a stored number out of
    /// range could trap later): `LoadedCanvas` checked it where it was read.
    private func makeRoom(_ id: String, from loaded: LoadedCanvas, now: Double) -> Room {
        let stored = loaded.stored
        let room = Room(canvas: loaded.canvas, history: stored.log, epochs: stored.epochs, answered: stored.answered, config: roomConfig,
                        metrics: metrics, undoStacks: loaded.undoStacks, now: now)
        room.tickPhase = phaseCounts.indices.min { phaseCounts[$0] < phaseCounts[$1] } ?? 0
        phaseCounts[room.tickPhase] += 1
        let journal = self.journal
        room.journal = { journal.append($0) }
        room.admitOp = admitOp
        let logger = self.logger
        room.onBackpressure = { session, closed, queued in
            logger.notice(closed ? "slow client closed with 4000: it kept falling behind" : "slow client resynced with a fresh welcome",
                          metadata: ["canvas": "\(id)", "session": "\(session)", "queued": "\(queued)"])
        }
        return room
    }

    /// A write for `canvas` failed: the room refuses ops until it is reloaded from what is durable, then
    /// rolls back to that (rejecting the ops it could not save with `unavailable`).
    private func recover(_ canvas: String, after error: any Error) {
        guard let room = rooms[canvas], !room.isRecovering else { return }
        logger.error("a write failed; rolling the canvas back to its durable state", metadata: ["canvas": "\(canvas)", "error": "\(error)"])
        room.isRecovering = true
        let post = self.post
        journal.load(canvas, recovering: true) { post(.reloaded(canvas, $0)) }
    }

    private func finishRecovery(_ canvas: String, _ result: Result<StoredCanvas, any Error>, now: Double) {
        guard let room = rooms[canvas] else { return }
        do {
            let stored = try result.get()
            try stored.validate(id: canvas, default: canvasDefaults)
            let restored = try stored.snapshot.map { try Canvas(snapshot: $0) } ?? Canvas(id: canvas, config: canvasDefaults)
            room.storageFailed(restoring: restored, history: stored.log, epochs: stored.epochs, answered: stored.answered, now: now)
            logger.notice("canvas recovered: rolled back to its durable state", metadata: ["canvas": "\(canvas)", "seq": "\(restored.seq)"])
        } catch let moved as OwnedElsewhere {
            // Another node took the canvas while this one failed to write it.
            drop(canvas, because: "\(moved)")
        } catch {
            // Not even readable: the room keeps refusing ops, and the next failure report tries again.
            logger.error("cannot reload canvas", metadata: ["canvas": "\(canvas)", "error": "\(error)"])
            room.isRecovering = false
        }
    }

    /// Sends the coalesced live delta of every room of `phase`; phase 0 also unloads rooms empty for
    /// `idleSeconds`.
    func tick(phase: Int = 0, now: Double, idleSeconds: Double) {
        for room in rooms.values where room.tickPhase == phase { room.tick(now: now) }
        guard phase == 0 else { return }
        for (id, room) in rooms where room.sessionCount == 0 {
            guard let since = room.emptySince, now - since >= idleSeconds else { continue }
            // The journal is serial, so a load asked for after this checkpoint reads what it wrote, and
            // another node that takes the canvas once it is released reads it too.
            room.checkpoint()
            forget(id)
            releaseCanvas(id)
            unloads += 1
            logger.info("canvas unloaded", metadata: ["canvas": "\(id)", "seq": "\(room.canvas.seq)", "checkpointed": "true"])
        }
    }

    /// Canvases unloaded since the server started.
    private(set) var unloads = 0
    /// Rooms dropped since the server started because this node no longer owned their canvas.
    private(set) var drops = 0

    /// Forgets the room of `canvas` without a checkpoint: this node no longer owns it (fenced, its lease
    /// not fresh, or another owner found on a reload). The next load of it is a `recovering` one, since the
    /// journal refuses its entries until then. `onDropped` closes its sessions.
    func drop(_ canvas: String, because why: String) {
        mustRecover.insert(canvas)
        guard let room = rooms[canvas] else { return }
        forget(canvas)
        drops += 1
        logger.notice("canvas dropped: this node no longer owns it; its clients reconnect", metadata: [
            "canvas": "\(canvas)", "seq": "\(room.canvas.seq)", "why": "\(why)",
        ])
        onDropped(canvas)
    }

    /// Takes the room of `canvas` out, and out of its phase.
    private func forget(_ canvas: String) {
        guard let room = rooms.removeValue(forKey: canvas) else { return }
        phaseCounts[room.tickPhase] -= 1
    }

    /// Drops every room (the lease stopped being fresh): see `drop`.
    func dropEverything(because why: String) {
        for canvas in rooms.keys.sorted() { drop(canvas, because: why) }
    }

    /// The first step of a shutdown: every gesture commits, then every room checkpoints.
    func commitEverything(now: Double) {
        for room in rooms.values { room.commitAllGestures(now: now) }
        for (id, room) in rooms {
            room.checkpoint()
            logger.debug("canvas checkpointed for the shutdown", metadata: ["canvas": "\(id)", "seq": "\(room.canvas.seq)"])
        }
    }
}
