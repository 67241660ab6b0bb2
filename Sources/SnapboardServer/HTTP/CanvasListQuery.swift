import SnapboardProtocol
import SnapboardStore

/// The query of `GET /v1/canvases`: `prefix` and `after` are canvas ids or parts of one, `limit` 1…1000
/// (default 100); with an access token, also the token's `canvas` claim, which only narrows the answer.
struct CanvasListQuery {
    var prefix = ""
    var after: String?
    var limit = 100
    /// The `canvas` claim of the access token the listing was asked with: an id, or a prefix ending in `*`.
    var claim: String?

    /// The prefix to read from the store: the longer of the asked prefix and the claim's (a claimed id is
    /// its own prefix); nil when they exclude each other, so nothing can be listed.
    var storePrefix: String? {
        guard let claim else { return prefix }
        let claimed = claim.hasSuffix("*") ? String(claim.dropLast()) : claim
        if claimed.hasPrefix(prefix) { return claimed }
        if prefix.hasPrefix(claimed), claim.hasSuffix("*") { return prefix }
        return nil
    }

    /// True for a stored canvas the listing may show: any, or one the claim covers. The store's prefix
    /// alone lets through `board-2` for a claim of `board`.
    func admits(_ summary: CanvasSummary) -> Bool {
        guard let claim, !claim.hasSuffix("*") else { return true }
        return summary.id == claim
    }

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
