/// What a `presence` message reports (P11).
public enum PresenceEvent: String, CaseIterable, Sendable {
    /// Someone joined (sent to the others).
    case join
    /// Someone left.
    case leave
    /// Who holds which gesture lease changed.
    case lease
}
