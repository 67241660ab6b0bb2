/// What a snap was made to.
public enum SnapTarget: Hashable, Sendable {
    /// An edge or centre of another shape.
    case shape(ShapeID)
    /// An edge or the centre of the canvas.
    case canvas
    /// A gridline.
    case grid
    /// A position that repeats a gap between neighbours (equal spacing).
    case gap

    /// The wire form: the shape id, `"canvas"` or `"grid"`.
    public var wireValue: String {
        switch self {
        case .shape(let id): id
        case .canvas: "canvas"
        case .grid: "grid"
        case .gap: "gap"
        }
    }
}

/// A ruler line shown while a snap holds (seed 003): on `axis` x it is the vertical line `x = at`,
/// drawn from `from` to `to` along y, covering the moved shape and everything aligned with it.
public struct Guide: Hashable, Sendable {
    public var axis: Axis
    public var at: Double
    public var from: Double
    public var to: Double
    public var target: SnapTarget

    public init(axis: Axis, at: Double, from: Double, to: Double, target: SnapTarget) {
        (self.axis, self.at, self.from, self.to, self.target) = (axis, at, from, to, target)
    }
}

/// A tactile tick for the person whose gesture just engaged a snap (seed 003's `UIImpactFeedbackGenerator`).
public struct Haptic: Hashable, Sendable {
    public enum Reason: String, Hashable, Sendable, Codable {
        case edge
        case grid
        case angle
        /// An equal-spacing snap.
        case gap
    }

    /// Always `light`, as in the seed; kept on the wire so richer styles can come later.
    public var style: String = "light"
    public var reason: Reason

    public init(reason: Reason) { self.reason = reason }
}

/// Equal spacing shown while a gap snap holds: on axis `x`, each segment is a horizontal gap from
/// `from` to `to` along x, drawn at `at` along y; every segment is `gap` long. One segment is the moved
/// shape's own gap; the others are the equal gaps it repeats.
public struct GapGuide: Hashable, Sendable {
    public struct Segment: Hashable, Sendable {
        public var from: Double
        public var to: Double
        public var at: Double

        public init(from: Double, to: Double, at: Double) {
            (self.from, self.to, self.at) = (from, to, at)
        }
    }

    public var axis: Axis
    public var gap: Double
    public var segments: [Segment]

    public init(axis: Axis, gap: Double, segments: [Segment]) {
        (self.axis, self.gap, self.segments) = (axis, gap, segments)
    }
}

/// Something an operation produced besides changed shapes.
public enum CanvasEvent: Hashable, Sendable {
    /// Goes to everyone on the canvas.
    case guide(Guide)
    /// Goes to everyone on the canvas.
    case gap(GapGuide)
    /// Goes only to the session whose operation caused it.
    case haptic(Haptic)
}
