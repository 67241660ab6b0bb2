import SnapboardLock

/// The stored canvases of this node against `--max-stored-canvases`: counted from the store at start, one
/// more for each canvas created (by a join, `POST` or an import to a new id), one fewer for each deleted.
/// Shared by the shards and the journal's thread; touched once per creation or deletion, never per op.
final class CanvasQuota: Sendable {
    let limit: Int
    private let stored: Locked<Int>

    init(limit: Int, stored: Int) {
        self.limit = limit
        self.stored = Locked(stored)
    }

    /// Canvases stored (or created and about to be).
    var count: Int { stored.withLock { $0 } }

    /// Takes a place for a new canvas: false when the node already stores `limit`.
    func reserve() -> Bool {
        stored.withLock { n in
            guard n < limit else { return false }
            n += 1
            return true
        }
    }

    /// Gives a place back: a canvas deleted, or a creation that did not happen.
    func release() {
        stored.withLock { $0 = max(0, $0 - 1) }
    }
}
