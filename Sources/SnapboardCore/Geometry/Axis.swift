/// One of the two canvas axes. Snapping treats them independently.
public enum Axis: String, Sendable, Codable, CaseIterable {
    case x
    case y

    /// The other axis.
    @inlinable public var other: Axis { self == .x ? .y : .x }
}
