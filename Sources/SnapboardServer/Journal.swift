import Dispatch
import Foundation
import SnapboardCore
import SnapboardStore
import SnapboardRoom
import Synchronization

/// The storage thread. It loads canvases and writes journal entries with group commit: whatever the rooms
/// handed over while the previous transaction was committing goes into the next one (at most
/// `maxBatch` entries), so under load one fsync covers many ops, and when idle an op waits for no timer.
///
/// The service thread calls `append`, `load` and `sync`; everything else runs on the journal's own thread.
/// Results come back through the callbacks, which the server turns into hand-overs to the service thread.
public final class Journal: @unchecked Sendable {
    enum Job: Sendable {
        case entry(JournalEntry)
        /// Loads a canvas; `recovering` first lets writes for it through again after a failure.
        case load(String, recovering: Bool, @Sendable (Result<StoredCanvas, Error>) -> Void)
        case barrier(DispatchSemaphore)
    }

    public struct Stats: Sendable {
        public var batches = 0
        public var entries = 0
        public var failures = 0
        public var batchSizes = BucketHistogram(bounds: BucketHistogram.counts)
        public var commitSeconds = BucketHistogram()
    }

    public let maxBatch: Int
    private let store: CanvasStore
    private let jobs = Mutex<[Job]>([])
    private let wake = DispatchSemaphore(value: 0)
    public let stats = Mutex(Stats())
    /// Canvases whose writes failed: their later entries are dropped until a recovering load.
    /// Journal thread only.
    private var poisoned: Set<String> = []
    /// Called on the journal thread with the highest durable seq of each canvas in a batch.
    public var onDurable: @Sendable ([String: Int]) -> Void = { _ in }
    /// Called on the journal thread with the canvases whose entries could not be written.
    public var onFailure: @Sendable (Set<String>, Error) -> Void = { _, _ in }

    public init(store: CanvasStore, maxBatch: Int = 500) {
        self.store = store
        self.maxBatch = maxBatch
    }

    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "snapboard-journal"
        thread.start()
    }

    public func append(_ entry: JournalEntry) { submit(.entry(entry)) }

    public func load(_ id: String, recovering: Bool = false, _ done: @escaping @Sendable (Result<StoredCanvas, Error>) -> Void) {
        submit(.load(id, recovering: recovering, done))
    }

    /// Waits until everything submitted so far is done.
    public func sync() {
        let done = DispatchSemaphore(value: 0)
        submit(.barrier(done))
        done.wait()
    }

    /// Jobs submitted and not yet taken by the journal thread.
    public var backlog: Int { jobs.withLock { $0.count } }

    private func submit(_ job: Job) {
        jobs.withLock { $0.append(job) }
        wake.signal()
    }

    private func run() {
        while true {
            wake.wait()
            let batch = jobs.withLock { all -> [Job] in
                defer { all.removeAll(keepingCapacity: true) }
                return all
            }
            // One signal per job, but a batch may take several jobs: later wake-ups may find nothing to do.
            var entries: [JournalEntry] = []
            for job in batch {
                switch job {
                case .entry(let entry):
                    if !poisoned.contains(entry.canvas) { entries.append(entry) }
                    if entries.count >= maxBatch { flush(&entries) }
                case .load(let id, let recovering, let done):
                    flush(&entries)
                    if recovering { poisoned.remove(id) }
                    done(Result { try store.load(id) })
                case .barrier(let done):
                    flush(&entries)
                    done.signal()
                }
            }
            flush(&entries)
        }
    }

    private func flush(_ entries: inout [JournalEntry]) {
        guard !entries.isEmpty else { return }
        defer { entries.removeAll(keepingCapacity: true) }
        let started = ContinuousClock.now
        do {
            try store.write(entries)
            let elapsed = ContinuousClock.now - started
            stats.withLock { s in
                s.batches += 1
                s.entries += entries.count
                s.batchSizes.record(Double(entries.count))
                s.commitSeconds.record(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
            var durable: [String: Int] = [:]
            for case .commit(let r) in entries { durable[r.canvas] = max(durable[r.canvas] ?? 0, r.seq) }
            for case .checkpoint(let s, _) in entries { durable[s.id] = max(durable[s.id] ?? 0, s.seq) }
            onDurable(durable)
        } catch {
            let canvases = Set(entries.map(\.canvas))
            poisoned.formUnion(canvases)
            stats.withLock { $0.failures += 1 }
            onFailure(canvases, error)
        }
    }
}
