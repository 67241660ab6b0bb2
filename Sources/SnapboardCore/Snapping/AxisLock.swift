/// An engaged snap on one axis: which edge of the moved shape (`probe`) is held at which coordinate.
struct AxisLock: Sendable {
    var target: SnapTarget
    var value: Double
    var probe: Probe
    /// The span, along the other axis, of everything aligned at `value`, and the store revision it is valid for.
    var alignedSpan: (range: ClosedRange<Double>, revision: Int)?
    /// For a gap snap: the equal gaps it shows.
    var gap: GapGuide?

    /// True when `other` holds a different snap, which deserves a fresh haptic.
    func differs(from other: AxisLock?) -> Bool {
        guard let other else { return true }
        return other.target != target || other.value != value
    }
}
