/// The texture drawn over a shape's fill (seed 004's hatching challenge).
public enum Hatch: String, Hashable, Sendable, Codable, CaseIterable {
    case none
    case hatch
    case crossHatch
}
