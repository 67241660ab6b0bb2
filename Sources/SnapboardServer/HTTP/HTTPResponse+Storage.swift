import SnapboardStore

extension HTTPResponse {
    /// What a request that storage could not answer gets: 503 `canvas_damaged` with the reason when the
    /// canvas's stored data fails the range checks (`DamagedCanvas`), else 503 `unavailable`.
    static func storageFailed(_ error: any Error) -> HTTPResponse {
        if let damaged = error as? DamagedCanvas { return .error(503, "canvas_damaged", damaged.description) }
        return .error(503, "unavailable", "storage failed")
    }
}
