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

/// The three snappable coordinates of a shape's bounds on one axis: left, centre, right (or top, middle, bottom).
enum Probe: Int, Sendable, CaseIterable {
    case min
    case mid
    case max

    func of(_ rect: Rect, _ axis: Axis) -> Double {
        switch (self, axis) {
        case (.min, .x): rect.minX
        case (.mid, .x): rect.midX
        case (.max, .x): rect.maxX
        case (.min, .y): rect.minY
        case (.mid, .y): rect.midY
        case (.max, .y): rect.maxY
        }
    }
}
