/// Where a gesture operation stands in its gesture. An operation without a phase is one-shot:
/// begin, update and end at once.
public enum GesturePhase: String, Hashable, Sendable, Codable {
    case begin
    case update
    case end
}
