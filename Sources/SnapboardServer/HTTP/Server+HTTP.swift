import SnapboardProtocol
import SnapboardStore

extension Server {
    /// The response to a plain HTTP GET outside the canvas API and the server's own status (`/healthz` and
    /// `/metrics`, gathered from every shard): a file of the browser client, or 404.
    func httpResponse(path: String, ifNoneMatch: String? = nil) -> HTTPResponse {
        if let asset = web.asset(for: path) {
            // A current copy in the browser gets 304 and no body.
            let current = asset.isCurrent(ifNoneMatch: ifNoneMatch)
            return HTTPResponse(current ? 304 : 200, asset.contentType, current ? [] : asset.body, headers: asset.headers)
        }
        return .error(404, "not_found")
    }
}

/// The query of `GET /v1/canvases`: `prefix` and `after` are canvas ids or parts of one, `limit` 1…1000
/// (default 100).
struct CanvasListQuery {
    var prefix = ""
    var after: String?
    var limit = 100

    struct Invalid: Error {
        var message: String
    }

    static func parse(_ arguments: [String]) -> Result<CanvasListQuery, Invalid> {
        var q = CanvasListQuery()
        for argument in arguments {
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? String(parts[1]) : ""
            switch parts[0] {
            case "prefix":
                guard value.isEmpty || CanvasAddress.isValidCanvasID(value) else { return .failure(Invalid(message: "prefix is up to 64 of [A-Za-z0-9_-]")) }
                q.prefix = value
            case "after":
                guard CanvasAddress.isValidCanvasID(value) else { return .failure(Invalid(message: "after is a canvas id")) }
                q.after = value
            case "limit":
                guard let n = Int(value), (1...1000).contains(n) else { return .failure(Invalid(message: "limit is 1...1000")) }
                q.limit = n
            default:
                break
            }
        }
        return .success(q)
    }
}

extension Server {
    /// The seq and shape count of those of canvases `ids` this server has loaded.
    func loadedFigures(_ ids: [String]) -> [String: LoadedFigures] {
        var found: [String: LoadedFigures] = [:]
        for id in ids {
            if let room = registry.rooms[id] { found[id] = LoadedFigures(seq: room.canvas.seq, shapes: room.canvas.shapes.count) }
        }
        return found
    }

    /// `{"canvases":[{"id","seq","changedAt","loaded","shapes"}],"next":ID|null}` for at most `limit` of
    /// `summaries` (one more than the limit was read, to know whether there is a next page); `loaded` has
    /// the figures of those in memory, from whichever shard holds them.
    func canvasList(_ summaries: [CanvasSummary], limit: Int, loaded: [String: LoadedFigures]) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.beginArray("canvases")
        for summary in summaries.prefix(limit) {
            let room = loaded[summary.id]
            w.beginObject()
            w.string("id", summary.id)
            // A loaded canvas may be ahead of what is durable.
            w.number("seq", max(summary.seq, room?.seq ?? 0))
            if let at = summary.changedAt { w.number("changedAt", at) } else { w.null("changedAt") }
            w.bool("loaded", room != nil)
            if let room { w.number("shapes", room.shapes) }
            w.endObject()
        }
        w.endArray()
        if summaries.count > limit, let last = summaries.prefix(limit).last { w.string("next", last.id) } else { w.null("next") }
        w.endObject()
        return w.bytes
    }
}

/// What the canvas listing says of a loaded canvas.
struct LoadedFigures: Sendable {
    var seq: Int
    var shapes: Int
}
