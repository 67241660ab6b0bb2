/// When a client's recent ops were meant to go out, by counter: a ring, so memory stays fixed however
/// long the run. An op older than the ring is no longer found (`sentTime` returns nil).
public struct SendLog: Sendable {
    private var table: SendTable

    public init(capacity: Int = 1024) { table = SendTable(rows: 1, capacity: capacity) }

    public mutating func record(counter: Int, at time: Int64) { table.record(row: 0, counter: counter, at: time) }

    /// The intended send time of op `counter`, if it is still in the ring.
    public func sentTime(counter: Int) -> Int64? { table.sentTime(row: 0, counter: counter) }
}

/// Many clients' send logs in one allocation, a row each: what the load tool looks up for every op id
/// in every delta, so a lookup is a shift, a mask and one cache line (each slot keeps its counter beside
/// its time), with nothing to retain.
public struct SendTable: Sendable {
    /// Slot `n` is `slots[2n]`, the counter (-1 when empty), and `slots[2n + 1]`, its intended send time.
    private var slots: [Int64]
    private let shift: Int
    private let mask: Int

    /// `rows` rings of `capacity` ops each, rounded up to a power of two.
    public init(rows: Int, capacity: Int = 1024) {
        var shift = 0
        while 1 << shift < max(1, capacity) { shift += 1 }
        self.shift = shift
        mask = (1 << shift) - 1
        slots = Array(repeating: -1, count: 2 * (max(0, rows) << shift))
    }

    public mutating func record(row: Int, counter: Int, at time: Int64) {
        let slot = 2 * (row << shift | counter & mask)
        slots[slot] = Int64(counter)
        slots[slot + 1] = time
    }

    /// The intended send time of op `counter` of row `row`, if it is still in the ring.
    public func sentTime(row: Int, counter: Int) -> Int64? {
        let slot = 2 * (row << shift | counter & mask)
        return slots[slot] == Int64(counter) ? slots[slot + 1] : nil
    }
}
