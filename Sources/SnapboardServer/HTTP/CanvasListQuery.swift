import SnapboardProtocol

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
