import SnapboardCore
import SnapboardRoom
import SnapboardStore

/// A stored canvas as the storage thread hands it to the service thread: checked, and its commits before the
/// resume window already replayed, so that building its room on the service thread replays only the window
/// (whose deltas the room keeps for resuming clients). For a canvas with a long log, the checks and the bulk
/// of the replay are most of a load's work after the read, and other canvases' clients would wait for them.
struct LoadedCanvas: Sendable {
    let stored: StoredCanvas
    /// The checkpoint (or an empty canvas) with the commits after it replayed, all but the last `window`.
    let canvas: Canvas
    /// The clients' undo and redo stacks, rebuilt from the whole log (on another thread while the canvas
    /// replays, for a long one).
    let undoStacks: Room.UndoStacks

    /// Throws `DamagedCanvas` when `stored` fails the range checks. `window` and `undoDepth` are the room's.
    init(_ stored: StoredCanvas, id: String, defaults: CanvasConfig, window: Int, undoDepth: Int) throws {
        try stored.validate(id: id, default: defaults)
        var canvas = try stored.snapshot.map { try Canvas(snapshot: $0) } ?? Canvas(id: id, config: defaults)
        // The checks hold the log to one record per seq, in order, and those after the checkpoint to an unbroken
        // run: they are its tail, the room's replay ends at the last, and `Room.restore` replays the last
        // `window` of them one by one.
        let base = canvas.seq, log = stored.log
        let start = log.firstIndex { $0.seq > base } ?? log.endIndex
        let bulk = max(0, log.endIndex - start - window)
        let through = max(base, log.last?.seq ?? base)
        undoStacks = Room.UndoStacks.rebuilt(log, through: through, depth: undoDepth) {
            if bulk > 0 { canvas.replay(log[start..<(start + bulk)], after: base) }
        }
        self.stored = stored
        self.canvas = canvas
    }
}
