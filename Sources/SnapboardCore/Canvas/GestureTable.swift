/// The gestures in progress, by the slot of their shape (an integer key, so a drag's update hashes no
/// string), with what follows from who holds which lease kept beside them in the one place that changes
/// it: the slots as bits, for the snap engine's exclusion test, and a version that moves whenever a lease
/// is taken or given up, so the room can tell that leases changed without building them.
struct GestureTable: Sendable {
    private(set) var bySlot: [Int32: Gesture] = [:]
    private(set) var slots = SlotBits()
    private(set) var version = 0
    /// The leases held, one moved out by `take` included.
    private(set) var count = 0

    subscript(slot: Int32) -> Gesture? { bySlot[slot] }

    /// Puts `gesture` on `slot`: a new lease when the slot had none, an update otherwise.
    mutating func set(_ gesture: Gesture, at slot: Int32) {
        guard bySlot.updateValue(gesture, forKey: slot) == nil else { return }
        slots.insert(slot)
        count += 1
        version &+= 1
    }

    /// Ends the gesture on `slot`, if there is one, and gives up its lease.
    @discardableResult
    mutating func remove(_ slot: Int32) -> Gesture? {
        guard let gesture = bySlot.removeValue(forKey: slot) else { return nil }
        slots.remove(slot)
        count -= 1
        version &+= 1
        return gesture
    }

    mutating func removeAll() {
        guard !bySlot.isEmpty else { return }
        bySlot.removeAll()
        slots = SlotBits()
        count = 0
        version &+= 1
    }

    /// Moves the gesture on `slot` out for one step, without copying it; `putBack` returns it. Its lease
    /// stands meanwhile (`slots`, `count` and `version` stay), but `self[slot]` does not see it.
    mutating func take(_ slot: Int32) -> Gesture? { bySlot.removeValue(forKey: slot) }

    /// Returns a gesture that `take` moved out.
    mutating func putBack(_ gesture: consuming Gesture, at slot: Int32) { bySlot[slot] = gesture }
}
