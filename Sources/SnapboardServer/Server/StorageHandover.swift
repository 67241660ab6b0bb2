import SnapboardLWS
import SnapboardLock
import SnapboardRoom

/// Storage events from the journal's thread for the service thread: queued under a lock, then the
/// context is woken and `Server.woken()` takes them.
final class StorageHandover: Sendable {
    private let queue = Locked<[StorageEvent]>([])
    private let context: LWSContext

    init(context: LWSContext) { self.context = context }

    @Sendable func post(_ event: StorageEvent) {
        queue.withLock { $0.append(event) }
        context.wake()
    }

    /// Whether events wait: the service thread looks between the writes of a long turn.
    var hasEvents: Bool { queue.withLock { !$0.isEmpty } }

    func take() -> [StorageEvent] {
        queue.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }
}
