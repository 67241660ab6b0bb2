import SnapboardProtocol

extension Server {
    /// The response to a plain HTTP GET: `/healthz`, `/metrics`, a loaded canvas's snapshot (`request` loads
    /// a canvas that is not in memory before it asks here), or a file of the browser client.
    func httpResponse(path: String, ifNoneMatch: String? = nil) -> HTTPResponse {
        if let asset = web.asset(for: path) {
            // A current copy in the browser gets 304 and no body.
            let current = asset.isCurrent(ifNoneMatch: ifNoneMatch)
            return HTTPResponse(current ? 304 : 200, asset.contentType, current ? [] : asset.body, headers: asset.headers)
        }
        switch path {
        case "/healthz":
            var w = JSONWriter()
            w.beginObject()
            w.string("status", shuttingDownSince == nil ? "ok" : "draining")
            w.number("canvases", registry.rooms.count)
            w.number("connections", connectionCount)
            w.number("uptime", now)
            w.endObject()
            // Draining fails the health check, so a proxy stops sending new clients here.
            return HTTPResponse(shuttingDownSince == nil ? 200 : 503, "application/json", w.bytes)
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
