/// What a listing says of a stored canvas, without loading it.
public struct CanvasSummary: Sendable, Equatable {
    public var id: String
    /// The last committed seq.
    public var seq: Int
    /// When it last changed, in seconds since 1970; nil where the store keeps no time (memory).
    public var changedAt: Double?

    public init(id: String, seq: Int, changedAt: Double?) {
        (self.id, self.seq, self.changedAt) = (id, seq, changedAt)
    }
}
