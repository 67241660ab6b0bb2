import SnapboardCore

/// Every code a `reject` can carry (PROTOCOL.md, P7): the canvas's own refusals, then the server's.
public enum RejectCode: Hashable, Sendable, CaseIterable {
    /// The canvas refused the op (its codes keep their names on the wire).
    case canvas(Rejection.Code)
    /// The session sent more ops per second than the server allows.
    case rateLimited
    /// The session joined as a viewer.
    case forbidden
    /// The op could not be saved; it was rolled back.
    case unavailable

    public static var allCases: [RejectCode] { Rejection.Code.allCases.map(RejectCode.canvas) + [.rateLimited, .forbidden, .unavailable] }

    /// The code on the wire.
    public var rawValue: String {
        switch self {
        case .canvas(let code): code.rawValue
        case .rateLimited: "rate_limited"
        case .forbidden: "forbidden"
        case .unavailable: "unavailable"
        }
    }
}

