import Dispatch
import Foundation
import SnapboardLock

#if canImport(Glibc)
import Glibc
#endif

/// Heavy reads (an export, a past state, a page of history) on threads of their own, each with its own
/// read-only connection to the store (`CanvasStore.readOnlyConnection()`), so that they neither wait for
/// the journal's commits nor hold them up: a commit on one canvas never queues behind an export of another.
///
/// Bounded: `workers` threads, and at most `queueLimit` reads admitted beyond them; `admit()` refuses the
/// rest, and the caller answers 503. The threads run at a lower priority (nice 10) than the service and
/// journal threads, so on a busy machine the CPU goes to acks first.
///
/// `admit()` from any thread, then `run` once per admitted read; its work runs on one of the pool's threads.
public final class ReadPool: @unchecked Sendable {
    public let workers: Int
    public let queueLimit: Int
    /// Each thread's connection, until `stop()` closes them.
    private let stores: Locked<[CanvasStore]>
    private let jobs = Locked<(admitted: Int, queue: [@Sendable (CanvasStore) -> Void], stopping: Bool)>((0, [], false))
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// A pool of one thread per store of `stores` (each used by its thread alone).
    public init(stores: [CanvasStore], queueLimit: Int) {
        precondition(!stores.isEmpty, "a read pool needs at least one connection")
        self.stores = Locked(stores)
        workers = stores.count
        self.queueLimit = queueLimit
    }

    /// Starts the threads.
    public func start() {
        for index in 0..<workers {
            // The thread takes its connection by index: `stop()` can then close it.
            let thread = Thread { [self] in serve(stores.withLock { $0[index] }) }
            thread.name = "snapboard-reader-\(index)"
            thread.start()
        }
    }

    /// Takes a place for one read: false when `workers` reads run and `queueLimit` more wait already.
    public func admit() -> Bool {
        jobs.withLock { state in
            guard !state.stopping, state.admitted < workers + queueLimit else { return false }
            state.admitted += 1
            return true
        }
    }

    /// Runs an admitted read's `work` on a pool thread; its place is given back when it returns.
    public func run(_ work: @escaping @Sendable (CanvasStore) -> Void) {
        jobs.withLock { $0.queue.append(work) }
        wake.signal()
    }

    /// Reads admitted and not finished (running or waiting).
    public var admitted: Int { jobs.withLock { $0.admitted } }

    /// Refuses new reads and drops those still waiting (a shutdown answers nobody), waits for those running,
    /// ends the threads and closes their connections: the writer's, closed after them, is then the last.
    public func stop() {
        jobs.withLock { state in
            state.stopping = true
            state.admitted -= state.queue.count
            state.queue.removeAll()
        }
        for _ in 0..<workers { wake.signal() }
        for _ in 0..<workers { stopped.wait() }
        stores.withLock { $0.removeAll() }
    }

    private func serve(_ store: CanvasStore) {
        #if canImport(Glibc)
        // Linux gives each thread its own nice value, and 0 names the calling thread: below the service and
        // journal threads.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
        while true {
            wake.wait()
            let next = jobs.withLock { state -> (@Sendable (CanvasStore) -> Void)?? in
                if !state.queue.isEmpty { return .some(state.queue.removeFirst()) }
                return state.stopping ? .some(nil) : nil
            }
            switch next {
            case .some(let work?):
                work(store)
                jobs.withLock { $0.admitted -= 1 }
            case .some(nil):
                stopped.signal()
                return
            case nil:
                continue
            }
        }
    }
}
