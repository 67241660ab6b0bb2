import Dispatch
import Foundation
import SnapboardCore
import SnapboardLock

/// The storage thread. It loads canvases and writes journal entries with group commit: whatever was
/// handed over while the previous transaction was committing goes into the next one (at most
/// `maxBatch` entries), so under load one fsync covers many ops, and when idle an op waits for no timer.
///
/// Any thread may call `append`, `load`, `sync` and `stop`; the store is used only on the journal's own
/// thread, which reports through `report`, given once at `init`.
public final class Journal: CanvasJournal, @unchecked Sendable {
    /// What a written batch came to, reported on the journal's thread.
    public enum Report: Sendable {
        /// The highest durable seq of each canvas in the batch.
        case durable([String: Int])
        /// These answers of ops that changed nothing are durable (after the batch's `durable`).
        case answered([AnsweredOp])
        /// These canvases' entries could not be written; their later entries are dropped until a
        /// `recovering` load.
        case failed(Set<String>, any Error)
    }

    enum Job: Sendable {
        case entry(JournalEntry)
        case load(String, recovering: Bool, @Sendable (Result<StoredCanvas, any Error>) -> Void)
        case barrier(DispatchSemaphore)
        case read(@Sendable (CanvasStore) -> Void)
        case release(String, @Sendable (Result<Void, any Error>) -> Void)
        case leave(@Sendable (Result<Void, any Error>) -> Void)
        case stop
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
    private let report: @Sendable (Report) -> Void
    private let jobs = Locked<[Job]>([])
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    public let stats = Locked(Stats())
    /// Canvases whose writes failed. Journal thread only.
    private var poisoned: Set<String> = []

    public init(store: CanvasStore, maxBatch: Int = 500, report: @escaping @Sendable (Report) -> Void = { _ in }) {
        self.store = store
        self.maxBatch = maxBatch
        self.report = report
    }

    /// Starts the journal's thread.
    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "snapboard-journal"
        thread.start()
    }

    public func append(_ entry: JournalEntry) { submit(.entry(entry)) }

    public func load(_ id: String, recovering: Bool = false, _ done: @escaping @Sendable (Result<StoredCanvas, any Error>) -> Void) {
        submit(.load(id, recovering: recovering, done))
    }

    /// Runs `work` with the store on the journal's thread, after everything queued before it is written:
    /// for reads that must not block the caller (a listing).
    public func read(_ work: @escaping @Sendable (CanvasStore) -> Void) { submit(.read(work)) }

    /// Gives canvas `id` up (`SharedCanvasStore.release`) after everything queued before it is written; a
    /// no-op for a store that is not shared. `done` runs on the journal's thread.
    public func release(_ id: String, _ done: @escaping @Sendable (Result<Void, any Error>) -> Void = { _ in }) {
        submit(.release(id, done))
    }

    /// Releases every canvas this node owns and ends its lease (`SharedCanvasStore.leave`) after everything
    /// queued before it is written: a drain's last job before `stop()`. A no-op for a store that is not
    /// shared. `done` runs on the journal's thread.
    public func leave(_ done: @escaping @Sendable (Result<Void, any Error>) -> Void = { _ in }) {
        submit(.leave(done))
    }

    /// Waits until everything submitted so far is done.
    public func sync() {
        let done = DispatchSemaphore(value: 0)
        submit(.barrier(done))
        done.wait()
    }

    /// Finishes what was submitted so far, then ends the thread; waits for it.
    public func stop() {
        submit(.stop)
        stopped.wait()
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
                case .read(let work):
                    flush(&entries)
                    work(store)
                case .release(let id, let done):
                    flush(&entries)
                    done(Result { try (store as? SharedCanvasStore)?.release(id) })
                case .leave(let done):
                    flush(&entries)
                    done(Result { try (store as? SharedCanvasStore)?.leave() })
                case .stop:
                    flush(&entries)
                    stopped.signal()
                    return
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
            report(.durable(Self.durable(entries)))
            reportAnswered(entries)
        } catch let fenced as Fenced where !Set(entries.map(\.canvas)).isSubset(of: fenced.canvases) {
            // A shared store wrote the other canvases' entries: they are durable, only these failed.
            poisoned.formUnion(fenced.canvases)
            stats.withLock { $0.failures += 1 }
            let written = entries.filter { !fenced.canvases.contains($0.canvas) }
            report(.durable(Self.durable(written)))
            reportAnswered(written)
            report(.failed(fenced.canvases, fenced))
        } catch {
            let canvases = Set(entries.map(\.canvas))
            poisoned.formUnion(canvases)
            stats.withLock { $0.failures += 1 }
            report(.failed(canvases, error))
        }
    }

    private func reportAnswered(_ entries: [JournalEntry]) {
        let answered = entries.compactMap { if case .answered(let op) = $0 { op } else { nil } }
        if !answered.isEmpty { report(.answered(answered)) }
    }

    /// The highest seq of each canvas that `entries` make durable.
    private static func durable(_ entries: [JournalEntry]) -> [String: Int] {
        var durable: [String: Int] = [:]
        for case .commit(let r) in entries { durable[r.canvas] = max(durable[r.canvas] ?? 0, r.seq) }
        for case .checkpoint(let s, _) in entries { durable[s.id] = max(durable[s.id] ?? 0, s.seq) }
        return durable
    }
}
