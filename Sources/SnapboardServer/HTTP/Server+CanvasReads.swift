import Foundation
import SnapboardLWS
import SnapboardProtocol
import SnapboardRender
import SnapboardStore

extension Server {
    /// `GET /v1/canvases/{id}`: the live canvas; a stored one that is not in memory is loaded first, on the
    /// journal's thread. Reading never creates a canvas: one that was never stored is a 404.
    func readCanvas(_ socket: LWSSocket, _ id: String) -> Int32 {
        if let room = registry.rooms[id] { return respondNow(socket, HTTPResponse(200, "application/json", room.snapshotJSON)) }
        guard registry.rooms.count + registry.loadingCount < canvasLimit else {
            countRefusal("canvases")
            return respondNow(socket, .error(503, "unavailable", "too many canvases are open"))
        }
        let arguments = socket.decodedArguments
        registry.lookUp(id, creating: false) { [unowned self] lookup in
            guard case .http(nil)? = sockets[socket.key] else { return }  // the client left
            switch lookup {
            case .room(let room): respond(socket, HTTPResponse(200, "application/json", room.snapshotJSON))
            case .absent, .full: respond(socket, .error(404, "not_found", "no canvas \(id)"))
            case .unavailable(let damaged): respond(socket, damaged.map { .error(503, "canvas_damaged", $0.description) } ?? .error(503, "unavailable"))
            case .elsewhere(let owner): respond(socket, Self.redirect(to: owner, path: CanvasAddress.prefix + id, arguments: arguments))
            }
        }
        return 0
    }

    /// `GET /v1/canvases?prefix=&after=&limit=`: stored canvases in id order, read on the journal's thread
    /// without loading any; a loaded one also says how many shapes it holds. With an access token, only
    /// the canvases its `canvas` claim covers.
    func listCanvases(_ socket: LWSSocket, arguments: [String], grant: APIRequest.Grant) -> Int32 {
        var asked: CanvasListQuery
        switch CanvasListQuery.parse(arguments) {
        case .success(let parsed): asked = parsed
        case .failure(let why): return respondNow(socket, .error(400, "bad_request", why.message))
        }
        if case .token(let claims) = grant { asked.claim = claims.canvas }
        let q = asked
        guard let prefix = q.storePrefix else {
            // The token's canvases and the asked prefix have none in common: nothing to read.
            return respondNow(socket, HTTPResponse(200, "application/json", CanvasJSON.list([], limit: q.limit, loaded: [:])))
        }
        return fromStore(socket) { store -> (summaries: [CanvasSummary], owners: [String: NodeIdentity]?) in
            let summaries = try store.summaries(prefix: prefix, after: q.after, limit: q.limit + 1).filter(q.admits)
            // A cluster's store is shared: every canvas is listed once, with the node that owns it.
            let owners = try (store as? SharedCanvasStore)?.owners(summaries.prefix(q.limit).map(\.id))
            return (summaries, owners)
        } then: { server, key, found in
            // The loaded canvases among them say more, from the shard that holds each.
            let ids = found.summaries.map(\.id)
            server.gather(awaiting: key) { shard in shard.loadedFigures(ids) } answer: { server, parts in
                let loaded = parts.reduce(into: [:]) { all, part in all.merge(part) { a, _ in a } }
                return HTTPResponse(200, "application/json", CanvasJSON.list(found.summaries, limit: q.limit, loaded: loaded, owners: found.owners))
            }
        }
    }

    /// `GET /v1/canvases/{id}?at=SEQ`: the committed canvas right after seq SEQ, rebuilt on a reader
    /// thread from the checkpoint and the log (after every commit made so far is written). Loads nothing.
    /// A heavy read: on a reader thread (`answerFromReader`), never the journal's.
    func canvasAt(_ socket: LWSSocket, _ id: String, at: String) -> Int32 {
        guard let seq = Int(at), seq >= 0 else { return respondNow(socket, .error(400, "bad_request", "at must be a seq (a whole number ≥ 0)")) }
        let defaults = options.canvas
        // The replay and its JSON are a reader thread's work; the service thread only sends the bytes.
        return answerFromReader(socket) { store -> (past: PastCanvas, json: [UInt8])? in
            let stored = try store.load(id)
            guard stored.snapshot != nil || !stored.log.isEmpty else { return nil }
            let past = try stored.state(at: seq, id: id, default: defaults)
            guard case .canvas(let canvas) = past else { return (past, []) }
            return (past, ServerMessage.canvasDocument(id: id, seq: canvas.seq, config: canvas.config,
                                                       shapes: canvas.committedSnapshot.shapes, sessions: 0))
        } answer: { _, found in
            switch found?.past {
            case nil: return .error(404, "not_found", "no canvas \(id)")
            case .notYet(let last)?: return .error(404, "not_found", "canvas \(id) has no seq \(seq) yet: its last is \(last)")
            case .gone(let oldest)?: return .error(410, "gone", "seq \(seq) is older than the oldest state kept of canvas \(id), \(oldest)")
            case .canvas?: return HTTPResponse(200, "application/json", found?.json ?? [])
            }
        }
    }

    /// `GET /v1/canvases/{id}/history?after=SEQ&limit=N`: the logged commits after SEQ, oldest first.
    func history(_ socket: LWSSocket, _ id: String, arguments: [String]) -> Int32 {
        var after = 0, limit = 100
        for argument in arguments {
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? String(parts[1]) : ""
            switch parts[0] {
            case "after":
                guard let n = Int(value), n >= 0 else { return respondNow(socket, .error(400, "bad_request", "after must be a seq (a whole number ≥ 0)")) }
                after = n
            case "limit":
                guard let n = Int(value), (1...1000).contains(n) else { return respondNow(socket, .error(400, "bad_request", "limit is 1...1000")) }
                limit = n
            default: break
            }
        }
        let (from, count) = (after, limit)
        // Read and serialised on a reader thread: up to 1,000 ops of JSON is no work for the service thread.
        return answerFromReader(socket) { store -> [UInt8]? in
            guard try store.summaries(prefix: id, after: nil, limit: 1).first?.id == id else { return nil }
            let commits = try store.history(id, after: from, limit: count + 1)
            let oldest = from == 0 && commits.first != nil ? commits.first?.record.seq : try store.history(id, after: 0, limit: 1).first?.record.seq
            return CanvasJSON.history(id, commits, limit: count, oldest: oldest)
        } answer: { _, json in
            guard let json else { return .error(404, "not_found", "no canvas \(id)") }
            return HTTPResponse(200, "application/json", json)
        }
    }

    /// `GET /v1/canvases/{id}/export`: the committed canvas in the export format (what `PUT` imports),
    /// from the store after every commit so far is written; loads nothing. Moving a canvas between nodes
    /// is this, a `PUT` on the new node and a `DELETE` on the old (docs/operations.md, "Running a cluster").
    /// `?format=svg` or `png` (with `scale`) draws it instead (`ExportFormat`), on the same reader thread.
    func exportCanvas(_ socket: LWSSocket, _ id: String) -> Int32 {
        let format: ExportFormat
        do { format = try ExportFormat(arguments: socket.decodedArguments) } catch {
            return respondNow(socket, .error(400, "bad_request", error.message))
        }
        let defaults = options.canvas
        return answerFromReader(socket) { store -> Result<ExportFormat.Body, RenderError>? in
            let stored = try store.load(id)
            guard stored.snapshot != nil || !stored.log.isEmpty else { return nil }
            return try format.render(try stored.recovered(id: id, default: defaults).committedSnapshot)
        } answer: { _, export in
            switch export {
            case nil: return .error(404, "not_found", "no canvas \(id)")
            case .success(let body)?: return HTTPResponse(200, body.contentType, body.bytes)
            case .failure(let refusal)?: return .error(refusal.code == "bad_request" ? 400 : 500, refusal.code, refusal.message)
            }
        }
    }

}
