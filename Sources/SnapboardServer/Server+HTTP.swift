import Foundation
import SnapboardProtocol

extension Server {
    /// The response to a plain HTTP GET: `/healthz`, `/metrics`, a loaded canvas's snapshot (`request` loads
    /// a canvas that is not in memory before it asks here), or a file of the browser client.
    func httpResponse(path: String, ifNoneMatch: String? = nil) -> HTTPResponse {
        if let asset = web.asset(for: path) {
            if path.hasPrefix("/c/"), !CanvasAddress.isValidCanvasID(String(path.dropFirst(3))) {
                return .error(404, "not_found", "canvas names are 1–64 of [A-Za-z0-9_-]")
            }
            var headers = [("ETag", asset.etag), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff")]
            if asset.contentType.hasPrefix("text/html") {
                headers += [("Content-Security-Policy", WebAssets.contentSecurityPolicy), ("Referrer-Policy", "no-referrer")]
            }
            // The validator matches: the browser's copy is current, so no body.
            if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag }) {
                return HTTPResponse(304, asset.contentType, [], headers: headers)
            }
            return HTTPResponse(200, asset.contentType, asset.body, headers: headers)
        }
        switch path {
        case "/healthz":
            var w = JSONWriter()
            w.beginObject()
            w.string("status", shuttingDownSince == nil ? "ok" : "shutting_down")
            w.number("canvases", registry.rooms.count)
            w.number("connections", connectionCount)
            w.number("uptime", now)
            w.endObject()
            return HTTPResponse(200, "application/json", w.bytes)
        case "/metrics":
            return HTTPResponse(200, "text/plain; version=0.0.4", Array(prometheusText().utf8))
        default:
            switch CanvasAddress.route(path: path, query: nil) {
            case .canvas(let address):
                guard let room = registry.rooms[address.canvas] else { return .error(503, "unavailable") }
                return HTTPResponse(200, "application/json", room.snapshotJSON)
            case .badRequest(let why):
                return .error(400, "bad_request", why)
            case .notFound:
                return .error(404, "not_found")
            }
        }
    }
}
