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
