/// A set of shape slots as bits: membership is a shift and a mask, with no hashing.
struct SlotBits: Sendable {
    private var words: [UInt64] = []

    /// Negative slots (the canvas's own edges) are never members.
    @inline(__always) func contains(_ slot: Int32) -> Bool {
        let w = Int(slot) >> 6
        return slot >= 0 && w < words.count && words[w] & (1 << UInt64(slot & 63)) != 0
    }

    mutating func insert(_ slot: Int32) {
        precondition(slot >= 0, "shape slots are not negative")
        let w = Int(slot) >> 6
        if w >= words.count { words += Array(repeating: 0, count: w - words.count + 1) }
        words[w] |= 1 << UInt64(slot & 63)
    }

    mutating func remove(_ slot: Int32) {
        let w = Int(slot) >> 6
        guard slot >= 0, w < words.count else { return }
        words[w] &= ~(1 << UInt64(slot & 63))
    }
}
