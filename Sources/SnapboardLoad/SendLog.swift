/// When a client's recent ops were meant to go out, by counter: a ring, so memory stays fixed however
/// long the run. An op older than the ring is no longer found (`sentTime` returns nil).
public struct SendLog: Sendable {
    private var times: [Int64]
    private var counters: [Int]

    public init(capacity: Int = 1024) {
        times = Array(repeating: 0, count: capacity)
        counters = Array(repeating: -1, count: capacity)
    }

    public mutating func record(counter: Int, at time: Int64) {
        let slot = counter % times.count
        times[slot] = time
        counters[slot] = counter
    }

    /// The intended send time of op `counter`, if it is still in the ring.
    public func sentTime(counter: Int) -> Int64? {
        let slot = counter % times.count
        return counters[slot] == counter ? times[slot] : nil
    }
}
