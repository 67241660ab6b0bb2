/// One run of a canvas's history: from a load (or a rollback after a failed write) to the next. Commits
/// go out before they are durable, so a crash can lose the end of a run that some clients saw; the next run
/// starts again from what was durable, `start`, under a fresh id. A client's `since` is a base the server
/// holds only if it lies at or before the point where the client's run was cut short (P16).
public struct Epoch: Hashable, Sendable {
    /// Random, 16 hex digits: a new one for every run.
    public var id: String
    /// The seq the run started from: every commit up to it was durable when it began.
    public var start: Int

    public init(id: String, start: Int) {
        (self.id, self.start) = (id, start)
    }

    /// A fresh random id.
    public static func randomID() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// True when a client that holds `since` from run `id` shares its history with the current run, the last
    /// of `runs` (oldest first): its run is the current one, or it was cut short no earlier than `since`.
    public static func holds(since: Int, of id: String, in runs: [Epoch]) -> Bool {
        guard let i = runs.lastIndex(where: { $0.id == id }) else { return false }
        return i == runs.count - 1 || since <= runs[i + 1].start
    }
}
