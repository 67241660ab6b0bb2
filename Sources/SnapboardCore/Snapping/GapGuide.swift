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
