import Foundation
import SnapboardProtocol
import SnapboardStore

/// The canvas API's JSON that is not a protocol message: the listing and the history pages it writes, and
/// what it says of a request body it cannot read.
enum CanvasJSON {
    /// `{"canvases":[{"id","seq","changedAt","loaded","shapes"}],"next":ID|null}` for at most `limit` of
    /// `summaries` (one more than the limit was read, to know whether there is a next page); `loaded` has
    /// the figures of those in memory, from whichever shard holds them. In a cluster (`owners` given) each
    /// also says which node owns it: `"owner"`, a node id or null.
    static func list(_ summaries: [CanvasSummary], limit: Int, loaded: [String: LoadedFigures], owners: [String: NodeIdentity]? = nil) -> [UInt8] {
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
            if let owners {
                if let owner = owners[summary.id] { w.string("owner", owner.id) } else { w.null("owner") }
            }
            w.endObject()
        }
        w.endArray()
        if summaries.count > limit, let last = summaries.prefix(limit).last { w.string("next", last.id) } else { w.null("next") }
        w.endObject()
        return w.bytes
    }

    /// `{"canvas","oldest","ops":[{"seq","at","client","name","opId","undoes"?,"redoes"?,"op"}],"next"}`.
    static func history(_ id: String, _ commits: [LoggedCommit], limit: Int, oldest: Int?) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var w = JSONWriter(reserving: 64 + commits.count * 256)
        w.beginObject()
        w.string("canvas", id)
        if let oldest { w.number("oldest", oldest) } else { w.null("oldest") }
        w.beginArray("ops")
        for commit in commits.prefix(limit) {
            let r = commit.record
            w.beginObject()
            w.number("seq", r.seq)
            if let at = commit.at { w.number("at", at) } else { w.null("at") }
            if let client = r.client { w.string("client", client) } else { w.null("client") }
            // Stored names are cleaned again as presence cleans them: the log is data from outside too.
            if let name = r.name.flatMap(DisplayName.clean) { w.string("name", name) } else { w.null("name") }
            if let opID = r.opID { w.string("opId", opID) } else { w.null("opId") }
            switch r.step {
            case .undo(let of)?: w.number("undoes", of)
            case .redo(let of)?: w.number("redoes", of)
            case nil: break
            }
            // A committed op always encodes; should it ever not, the entry says so instead of failing the page.
            if let op = try? encoder.encode(r.op) { w.raw("op", Array(op)) } else { w.null("op") }
            w.endObject()
        }
        w.endArray()
        if commits.count > limit, let last = commits.prefix(limit).last { w.number("next", last.record.seq) } else { w.null("next") }
        w.endObject()
        return w.bytes
    }

    /// True when a null appears anywhere in `value`.
    static func holdsNull(_ value: JSONValue) -> Bool {
        switch value {
        case .null: true
        case .array(let items): items.contains(where: holdsNull)
        case .object(let members): members.values.contains(where: holdsNull)
        case .bool, .number, .string: false
        }
    }

    /// A decoding error in a sentence: what is wrong, and where.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return keys.isEmpty ? "" : " at \(keys)"
        }
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): return c.debugDescription + path(c)
        case .keyNotFound(let key, let c): return "missing \(key.stringValue)" + path(c)
        @unknown default: return "\(error)"
        }
    }
}
