import Foundation
import SnapboardCore
import SnapboardRender

/// What `GET /v1/canvases/{id}/export` answers with, from its query: `format=json` (the default: the export
/// `PUT` imports), `svg`, or `png` with `scale` pixels per canvas unit (0.1…4, default 1).
enum ExportFormat: Equatable {
    case json
    case svg
    case png(scale: Double)

    /// A query the export cannot answer, with what to ask instead.
    struct Invalid: Error {
        var message: String
    }

    /// An export's media type and bytes.
    struct Body: Sendable {
        var contentType: String
        var bytes: [UInt8]
    }

    /// The format the query arguments (`name=value`, decoded) ask for. `scale` is checked whenever it is
    /// given, and used only by `png`; other arguments (`token`) are not the export's.
    init(arguments: [String]) throws(Invalid) {
        func value(_ name: String) -> String? {
            arguments.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
        }
        var scale = 1.0
        if let text = value("scale") {
            guard let asked = Double(text), asked.isFinite, PNGRenderer.scaleRange.contains(asked) else {
                throw Invalid(message: "scale must be a number from \(PNGRenderer.scaleRange.lowerBound) to \(PNGRenderer.scaleRange.upperBound) (pixels per canvas unit)")
            }
            scale = asked
        }
        switch value("format") ?? "json" {
        case "json": self = .json
        case "svg": self = .svg
        case "png": self = .png(scale: scale)
        case let other:
            throw Invalid(message: "format must be json, svg or png, not '\(other.prefix(32))'")
        }
    }

    /// The snapshot in this format: JSON with sorted keys, an SVG document, or PNG bytes; a PNG too large
    /// to draw is a `RenderError`. Throws only when JSON encoding fails.
    func render(_ snapshot: CanvasSnapshot) throws -> Result<Body, RenderError> {
        switch self {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return .success(Body(contentType: "application/json", bytes: Array(try encoder.encode(snapshot))))
        case .svg:
            return .success(Body(contentType: SVGRenderer.mediaType, bytes: Array(SVGRenderer.render(CanvasPicture(snapshot)).utf8)))
        case .png(let scale):
            return Result { () throws(RenderError) in Body(contentType: PNGRenderer.mediaType, bytes: try PNGRenderer.render(CanvasPicture(snapshot), scale: scale)) }
        }
    }
}
