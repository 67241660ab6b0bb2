import SnapboardCore

/// A stored canvas the server refuses to load: a row that does not decode, or a number out of the ranges
/// the engine computes with (`StoredCanvas.problem`). The server answers such a canvas with 503
/// `canvas_damaged` (WebSocket: `unavailable`) and logs why; every other canvas keeps working.
public struct DamagedCanvas: Error, CustomStringConvertible, Sendable {
    public var canvas: String
    public var reason: String

    public init(canvas: String, reason: String) {
        self.canvas = canvas
        self.reason = reason
    }

    public var description: String { "canvas \(canvas)'s stored data is damaged: \(reason)" }
}
