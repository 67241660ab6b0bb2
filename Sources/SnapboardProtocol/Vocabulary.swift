import SnapboardCore

/// Every code a `reject` can carry (PROTOCOL.md, P7): the canvas's own refusals, then the server's.
public enum RejectCode: String, CaseIterable, Sendable {
    case unknownShape = "unknown_shape"
    case shapeLocked = "shape_locked"
    case noGesture = "no_gesture"
    case outOfBounds = "out_of_bounds"
    case notFinite = "not_finite"
    case canvasFull = "canvas_full"
    case badShape = "bad_shape"
    case badShapeID = "bad_shape_id"
    case outOfRange = "out_of_range"
    /// The session sent more ops per second than the server allows.
    case rateLimited = "rate_limited"
    /// The session joined as a viewer.
    case forbidden
    /// The op could not be saved; it was rolled back.
    case unavailable

    /// The code of a refusal by the canvas.
    public init(_ code: Rejection.Code) {
        // Every canvas code is a reject code by the same name (a test checks both lists).
        self.init(rawValue: code.rawValue)!
    }
}

/// What a `presence` message reports (P11).
public enum PresenceEvent: String, CaseIterable, Sendable {
    /// Someone joined (sent to the others).
    case join
    /// Someone left.
    case leave
    /// Who holds which gesture lease changed.
    case lease
}
