/// How edge, grid and angle snapping behave on a canvas.
public struct SnapSettings: Hashable, Sendable, Codable {
    /// How close, in canvas units at zoom 1, an edge must come to a candidate to engage a snap.
    public var threshold: Double = 5
    /// How much further than `threshold` the raw position must move to release an engaged snap (the grip).
    public var releaseMargin: Double = 4
    /// Whether moved shapes snap to other shapes' edges and centres and to the canvas edges and centre.
    public var objects: Bool = true
    /// Whether moved shapes snap to gridlines on an axis where no object snap holds.
    public var grid: Bool = true
    /// Rotations snap to multiples of this angle, in radians (15°).
    public var angleStep: Double = Double.pi / 12
    /// How close, in radians, a rotation must come to a multiple of `angleStep` to snap (3°).
    public var angleTolerance: Double = Double.pi / 60

    public init() {}

    /// The engage distance for a client at `zoom`: thresholds are in screen terms, so they shrink as the client zooms in.
    @inlinable public func engageDistance(zoom: Double) -> Double { threshold / zoom }

    /// The release distance for a client at `zoom`.
    @inlinable public func releaseDistance(zoom: Double) -> Double { (threshold + releaseMargin) / zoom }

    /// True when every number is finite and in a sensible range.
    public var isValid: Bool {
        threshold.isFinite && threshold >= 0 && threshold <= 1_000
            && releaseMargin.isFinite && releaseMargin >= 0 && releaseMargin <= 1_000
            && angleStep.isFinite && angleStep > 0 && angleStep <= Double.pi
            && angleTolerance.isFinite && angleTolerance >= 0 && angleTolerance < angleStep / 2
    }
}
