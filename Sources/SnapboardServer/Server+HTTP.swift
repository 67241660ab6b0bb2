import SnapboardProtocol

extension Server {
    /// The response to a plain HTTP GET: `/healthz`, `/metrics`, or a loaded canvas's snapshot
    /// (`request` loads a canvas that is not in memory before it asks here).
    func httpResponse(path: String) -> HTTPResponse {
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
