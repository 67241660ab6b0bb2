/// The gestures in progress, by the slot of their shape, with what follows from who holds which lease kept
/// beside them in the one place that changes it: the slots as bits, for the snap engine's exclusion test,
/// and a version that moves whenever a lease is taken or given up, so the room can tell that leases changed
/// without building them.
///
/// The gestures sit in a dense array, and each slot's place in it in a second array as long as the highest
/// slot that held one: a drag's every step finds its gesture by two indexings, with no hashing, and moves
/// it out for the step and back without copying it.
struct GestureTable: Sendable {
    /// The gestures with their slots, in no order; a gesture is nil only while `take` has it out.
    private var entries: [(slot: Int32, gesture: Gesture?)] = []
    /// Each slot's index in `entries`, or -1.
    private var places: [Int32] = []
    private(set) var slots = SlotBits()
    private(set) var version = 0

    /// The leases held, one moved out by `take` included.
    var count: Int { entries.count }

    /// Every gesture with its slot, one moved out by `take` excepted.
    var all: [(slot: Int32, gesture: Gesture)] { entries.compactMap { e in e.gesture.map { (e.slot, $0) } } }

    /// Runs `body` on every gesture with its slot, one moved out by `take` excepted, without copying them.
    func forEach(_ body: (_ slot: Int32, _ gesture: Gesture) -> Void) {
        for i in entries.indices { if let g = entries[i].gesture { body(entries[i].slot, g) } }
    }

    subscript(slot: Int32) -> Gesture? { place(of: slot).flatMap { entries[$0].gesture } }

    private func place(of slot: Int32) -> Int? {
        let i = Int(slot)
        guard i >= 0, i < places.count, places[i] >= 0 else { return nil }
        return Int(places[i])
    }

    /// Puts `gesture` on `slot`: a new lease when the slot had none, an update otherwise.
    mutating func set(_ gesture: Gesture, at slot: Int32) {
        if let p = place(of: slot) {
            entries[p].gesture = gesture
            return
        }
        precondition(slot >= 0, "shape slots are not negative")
        if Int(slot) >= places.count { places += repeatElement(-1, count: Int(slot) - places.count + 1) }
        places[Int(slot)] = Int32(entries.count)
        entries.append((slot, gesture))
        slots.insert(slot)
        version &+= 1
    }

    /// Ends the gesture on `slot`, if there is one, and gives up its lease. The last entry takes its place.
    @discardableResult
    mutating func remove(_ slot: Int32) -> Gesture? {
        guard let p = place(of: slot) else { return nil }
        let gesture = entries[p].gesture
        let last = entries.count - 1
        if p != last {
            entries.swapAt(p, last)
            places[Int(entries[p].slot)] = Int32(p)
        }
        entries.removeLast()
        places[Int(slot)] = -1
        slots.remove(slot)
        version &+= 1
        return gesture
    }

    mutating func removeAll() {
        guard !entries.isEmpty else { return }
        entries.removeAll()
        places.removeAll()
        slots = SlotBits()
        version &+= 1
    }

    /// Moves the gesture on `slot` out for one step, without copying it; `putBack` returns it. Its lease
    /// stands meanwhile (`slots`, `count` and `version` stay), but `self[slot]` does not see it.
    mutating func take(_ slot: Int32) -> Gesture? {
        guard let p = place(of: slot) else { return nil }
        return entries[p].gesture.take()
    }

    /// Returns a gesture that `take` moved out.
    mutating func putBack(_ gesture: consuming Gesture, at slot: Int32) {
        guard let p = place(of: slot) else { return set(gesture, at: slot) }
        entries[p].gesture = gesture
    }
}
