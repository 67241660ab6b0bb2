/// Why a canvas could not be rendered: a stable `code` for the API and a message that says what to change.
public enum RenderError: Error, Hashable, Sendable {
    /// The PNG scale is not a number within `PNGRenderer.scaleRange`.
    case scaleOutOfRange(Double)
    /// At the asked scale the PNG would be `width × height` pixels, past `PNGRenderer.maxSide` or `maxPixels`;
    /// `largestScale` is the biggest scale that fits (nil when none in `scaleRange` does).
    case tooLarge(width: Int, height: Int, largestScale: Double?)
    /// cairo failed, with its own description of the status.
    case cairo(String)

    /// What the API answers: `bad_request` for a request that can never be drawn, `render_failed` for cairo.
    public var code: String {
        switch self {
        case .scaleOutOfRange, .tooLarge: "bad_request"
        case .cairo: "render_failed"
        }
    }

    public var message: String {
        switch self {
        case .scaleOutOfRange:
            return "scale must be a number from \(PNGRenderer.scaleRange.lowerBound) to \(PNGRenderer.scaleRange.upperBound)"
        case .tooLarge(let width, let height, let largest):
            let limit = "at most \(PNGRenderer.maxSide) pixels a side and \(PNGRenderer.maxPixels) in all"
            let advice = largest.map { "; a scale of \($0) or less fits" } ?? "; no scale fits this canvas: export it as SVG"
            return "the PNG would be \(width)×\(height) pixels, \(limit)\(advice)"
        case .cairo(let status):
            return "cairo could not draw the canvas: \(status)"
        }
    }
}
