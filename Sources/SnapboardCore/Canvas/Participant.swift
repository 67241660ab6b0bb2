/// Who is applying an operation, one per session: the lease owner identity and the zoom that scales its snap thresholds.
public struct Participant: Hashable, Sendable {
    public var id: String
    public var zoom: Double

    public init(id: String, zoom: Double = 1) {
        self.id = id
        self.zoom = zoom.isFinite && zoom > 0 ? min(max(zoom, 0.01), 100) : 1
    }
}
