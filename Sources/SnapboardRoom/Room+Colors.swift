import SnapboardProtocol

/// Presence colours (P11): each live session takes a slot of `SessionInfo.palette`, so that up to 12 people
/// in one canvas are told apart, and a person keeps theirs across reconnects while it is free.
extension Room {
    /// Colour keys remembered per room: a bound, since every client id that ever joined would otherwise stay.
    static let rememberedColorLimit = 1024

    /// Gives a joining session its colour slot: the one its key already has when that key is live in
    /// another session (the same person, reconnecting before the old session is gone); else the slot the
    /// key last had here, when free; else its hash slot, when free; else the next free slot after it. With
    /// every slot taken, the hash slot.
    func takeColor(for info: inout SessionInfo) {
        let key = info.colorKey
        let count = SessionInfo.palette.count
        let slot: Int
        if let live = liveColors[key] {
            slot = live.slot
        } else {
            let hash = SessionInfo.hashSlot(key)
            let isFree = { (slot: Int) in self.colorSlotCounts[slot] == 0 }
            slot = rememberedColors[key].flatMap { isFree($0) ? $0 : nil }
                ?? (0..<count).lazy.map { (hash + $0) % count }.first(where: isFree)
                ?? hash
        }
        info.colorSlot = slot
        colorSlotCounts[slot] += 1
        liveColors[key, default: (slot, 0)].sessions += 1
        remember(key, slot)
    }

    /// Frees a leaving session's slot (once no other session of its key holds it).
    func releaseColor(of info: SessionInfo) {
        let key = info.colorKey
        guard var live = liveColors[key] else { return }
        colorSlotCounts[live.slot] -= 1
        live.sessions -= 1
        liveColors[key] = live.sessions > 0 ? live : nil
    }

    private func remember(_ key: String, _ slot: Int) {
        if rememberedColors.updateValue(slot, forKey: key) == nil {
            rememberedColorOrder.append(key)
            if rememberedColorOrder.count > Self.rememberedColorLimit {
                rememberedColors[rememberedColorOrder.removeFirst()] = nil
            }
        }
    }
}
