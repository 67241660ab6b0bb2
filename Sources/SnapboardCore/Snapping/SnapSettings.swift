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
    /// Whether moved shapes snap to equal spacing: centred between two neighbours, or at the end of a row
    /// with the gap its neighbours already have. Needs `objects`.
    public var gaps: Bool = true
    /// Rotations snap to multiples of this angle, in radians (15°).
    public var angleStep: Double = Double.pi / 12
    /// How close, in radians, a rotation must come to a multiple of `angleStep` to snap (3°).
    public var angleTolerance: Double = Double.pi / 60

    public init() {}

    enum CodingKeys: String, CodingKey {
        case threshold, releaseMargin, objects, grid, gaps, angleStep, angleTolerance
    }

    /// Snapshots written before 1.1 have no `gaps`: it takes its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        threshold = try c.decode(Double.self, forKey: .threshold)
        releaseMargin = try c.decode(Double.self, forKey: .releaseMargin)
        objects = try c.decode(Bool.self, forKey: .objects)
        grid = try c.decode(Bool.self, forKey: .grid)
        gaps = try c.decodeIfPresent(Bool.self, forKey: .gaps) ?? true
        angleStep = try c.decode(Double.self, forKey: .angleStep)
        angleTolerance = try c.decode(Double.self, forKey: .angleTolerance)
    }

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
