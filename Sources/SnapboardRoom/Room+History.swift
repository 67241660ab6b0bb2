import SnapboardCore
import SnapboardProtocol

/// The canvas's history as resuming clients see it: the runs (epochs) it went through, and the committed
/// deltas kept for them, replayed or rebuilt from the log when the room loads.
extension Room {
    /// A committed delta kept for resuming clients: the frame every session was sent, or one rebuilt from the
    /// log when the canvas loaded, serialised only when a client first resumes through it (a load stays
    /// cheap on the service thread however long the window).
    enum RetainedDelta {
        case frame(Frame)
        case rebuilt(Delta)
    }

    func beginEpoch(_ id: String, after recorded: [Epoch]) {
        epochs = recorded.filter { $0.id != id } + [Epoch(id: id, start: canvas.seq)]
        epochJournaled = false
    }

    /// True when a client holding `since` from run `epoch` can be sent just what it missed: the deltas are
    /// retained and its base is one this server holds (P16). Without a run, the base cannot be vouched for.
    func canResume(since: Int?, epoch: String?) -> Bool {
        guard let since, let epoch, since <= canvas.seq, since + 1 >= firstRetainedSeq else { return false }
        return Epoch.holds(since: since, of: epoch, in: epochs)
    }

    func restore(_ history: [CommitRecord], undoStacks: UndoStacks? = nil) {
        // Storage reads the log in seq order, so it is sorted (a copy of every record) only when given otherwise,
        // and the commits after the checkpoint are its tail.
        let history = history.indices.dropFirst().allSatisfy { history[$0 - 1].seq <= history[$0].seq } ? history : history.sorted { $0.seq < $1.seq }
        let log = history[(history.firstIndex { $0.seq > canvas.seq } ?? history.endIndex)...]
        // Replay in bulk up to the resume window, then one by one, keeping each delta for resuming clients.
        let bulk = max(0, log.count - config.retainedDeltas)
        // The clients' undo and redo stacks come from the same records, up to the seq the replay reaches: the
        // ones storage rebuilt, or rebuilt here (for a long log, on another thread while this one replays).
        let through = log.dropFirst(bulk).reduce(canvas.seq + bulk) { seq, record in record.seq == seq + 1 ? seq + 1 : seq }
        if let undoStacks, undoStacks.through == through {
            replay(history, log, bulk: bulk)
            histories = undoStacks.byClient
        } else {
            histories = UndoStacks.rebuilt(history, through: through, depth: config.undoDepth) { replay(history, log, bulk: bulk) }.byClient
        }
        assert(through == canvas.seq, "the undo stacks were rebuilt up to seq \(through), the replay reached \(canvas.seq)")
    }

    /// `restore`'s replay of `log` (the commits of `history` after the checkpoint): the first `bulk` at once,
    /// the rest one by one with their deltas kept for resuming clients; then exactly-once bookkeeping.
    private func replay(_ history: [CommitRecord], _ log: ArraySlice<CommitRecord>, bulk: Int) {
        if bulk == 0 {
            // The window reaches back before the checkpoint (after a shutdown or an unload): those commits'
            // deltas are rebuilt from the log itself, so a client reconnecting after a deploy still resumes.
            for (seq, delta) in rebuiltDeltas(history, limit: config.retainedDeltas - log.count) { retain(.rebuilt(delta), seq: seq) }
        }
        canvas.replay(log.prefix(bulk), after: canvas.seq)
        if retained.isEmpty { firstRetainedSeq = canvas.seq + 1 }
        for record in log.dropFirst(bulk) where record.seq == canvas.seq + 1 {
            let outcome = canvas.replay(record.op)
            let delta = Delta(seq: outcome.seq, by: 0, ops: record.opID.map { [$0] } ?? [], shapes: outcome.changed,
                              removed: outcome.removed, cleared: outcome.cleared, live: false)
            retain(.rebuilt(delta), seq: outcome.seq)
        }
        for record in history.suffix(config.rememberedOpsPerClient * 4) {
            if let client = record.client, let opID = record.opID, record.seq <= canvas.seq {
                remember(opID, seq: record.seq, for: client)
            }
        }
    }

    /// The shortest history whose undo stacks `restore` rebuilds on another thread.
    public static let concurrentHistoriesFrom = 20_000

    /// The committed deltas of the commits up to the canvas's seq (those its checkpoint already holds), at
    /// most `limit` of them, rebuilt from their log records: a creation carries its whole shape; a placement
    /// takes the rest of its shape (kind, fill, hatch) from the shape's creation earlier in the run, or else
    /// from the checkpoint. Only the unbroken run of records ending at the canvas's seq counts, and it starts
    /// after any placement whose shape cannot be told for sure (one created before the run and gone since,
    /// or an id created again later in the run): a resume may fall back to a snapshot, never go wrong.
    /// `history` is in seq order.
    func rebuiltDeltas(_ history: [CommitRecord], limit: Int) -> [(seq: Int, delta: Delta)] {
        var run: [CommitRecord] = []
        var expected = canvas.seq
        for i in history.indices.reversed() where history[i].seq <= canvas.seq {
            guard history[i].seq == expected, run.count < limit else { break }
            run.append(history[i])
            expected -= 1
        }
        run.reverse()
        // A commit lays the connectors bound to what it moves again (P28), and its record does not say which:
        // on a canvas with connectors, or a run that had one, a resume gets a snapshot instead.
        if canvas.holdsConnectors || run.contains(where: { record in
            if case .reconnect = record.op { return true }
            return arrivalsOrRemovals(record.op).contains { $0.kind.isConnector }
        }) {
            return []
        }
        /// The shapes an effect brings in whole.
        func arrivals(_ op: CommittedOp) -> [Shape] {
            switch op {
            case .create(let shape, _): [shape]
            case .restore(let shapes): shapes
            case .place, .clear, .remove, .order, .lock, .edit, .reconnect, .arrange: []
            }
        }
        var createdLater = Set<ShapeID>()
        for record in run { for shape in arrivals(record.op) { createdLater.insert(shape.id) } }
        var created: [ShapeID: Shape] = [:]
        var frames: [(seq: Int, delta: Delta)] = []
        for record in run {
            var shapes: [Shape] = []
            var removed: [ShapeID] = []
            var cleared = false
            switch record.op {
            case .create, .restore:
                shapes = arrivals(record.op)
                for shape in shapes { created[shape.id] = shape }
            case .remove(let gone):
                removed = gone.map(\.id)
            case .place(let placement, _):
                let known = created[placement.id] ?? (createdLater.contains(placement.id) ? nil : canvas.shape(placement.id))
                guard let known else {
                    frames.removeAll()
                    continue
                }
                shapes = [placement.applied(to: known)]
            case .arrange(let placements, _):
                let known = placements.map { created[$0.id] ?? (createdLater.contains($0.id) ? nil : canvas.shape($0.id)) }
                guard known.allSatisfy({ $0 != nil }) else {
                    frames.removeAll()
                    continue
                }
                shapes = zip(placements, known).map { $0.applied(to: $1!) }
            case .order, .lock, .edit:
                // Whole shapes, from their latest state in the run (or the checkpoint's), with the new z, flag or look.
                var all: [Shape]? = []
                let changes: [(id: ShapeID, z: Int?, locked: Bool?, look: ShapeLook?)] = switch record.op {
                case .order(let moves): moves.map { ($0.id, $0.z, nil, nil) }
                case .lock(let ids, let locked): ids.map { ($0, nil, locked, nil) }
                case .edit(let changes): changes.map { ($0.id, nil, nil, $0.look) }
                default: []
                }
                for change in changes {
                    guard var shape = created[change.id] ?? (createdLater.contains(change.id) ? nil : canvas.shape(change.id)) else {
                        all = nil
                        break
                    }
                    if let z = change.z { shape.z = z }
                    if let locked = change.locked { shape.locked = locked }
                    if let look = change.look { shape = look.applied(to: shape) }
                    all?.append(shape)
                }
                guard let all else {
                    frames.removeAll()
                    continue
                }
                shapes = all
            case .clear:
                cleared = true
            case .reconnect(let after, _):
                shapes = [after]
            }
            // The latest state of each shape the run has seen, for the placements, orders and locks after it.
            for shape in shapes { created[shape.id] = shape }
            for shape in arrivals(record.op) { createdLater.remove(shape.id) }
            let delta = Delta(seq: record.seq, by: 0, ops: record.opID.map { [$0] } ?? [], shapes: shapes, removed: removed,
                              cleared: cleared, live: false)
            frames.append((record.seq, delta))
        }
        return frames
    }

    /// The shapes an effect creates, brings back or removes whole.
    private func arrivalsOrRemovals(_ op: CommittedOp) -> [Shape] {
        switch op {
        case .create(let shape, _): [shape]
        case .restore(let shapes), .remove(let shapes), .clear(let shapes): shapes
        case .place, .order, .lock, .edit, .reconnect, .arrange: []
        }
    }

    func retain(_ delta: RetainedDelta, seq: Int) {
        if retained.isEmpty { firstRetainedSeq = seq }
        retained.append(delta)
        if retained.count > config.retainedDeltas {
            retained.removeFirst(retained.count - config.retainedDeltas)
            firstRetainedSeq = seq - config.retainedDeltas + 1
        }
    }

    /// The frame of the retained delta at `index`, serialised now (and kept) if it was rebuilt from the log.
    func retainedFrame(at index: Int) -> Frame {
        switch retained[index] {
        case .frame(let frame):
            return frame
        case .rebuilt(let delta):
            let frame = Frame(payload: ServerMessage.delta(delta))
            retained[index] = .frame(frame)
            return frame
        }
    }
}
