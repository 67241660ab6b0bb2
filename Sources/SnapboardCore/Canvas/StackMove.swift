/// Where an `order` op puts its shapes in the stacking order (1.6).
public enum StackMove: String, Hashable, Sendable, CaseIterable {
    /// Above every other shape, keeping their order among themselves.
    case front
    /// Below every other shape, keeping their order among themselves.
    case back
    /// Each just above the nearest other shape above it whose bounds share a point with its own.
    case forward
    /// Each just below the nearest other shape below it whose bounds share a point with its own.
    case backward
}

/// One shape's new z in an `order` effect, with the z it had before (what undo goes back to).
public struct ZMove: Hashable, Sendable, Codable {
    public var id: ShapeID
    public var z: Int
    public var before: Int

    public init(id: ShapeID, z: Int, before: Int) {
        (self.id, self.z, self.before) = (id, z, before)
    }
}
