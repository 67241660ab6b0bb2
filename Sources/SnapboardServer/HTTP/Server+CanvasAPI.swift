import CLibWebSockets
import Foundation
import SnapboardCore
import SnapboardLWS
import SnapboardProtocol
import SnapboardRoom
import SnapboardStore

/// What an HTTP path names, and the methods it answers.
enum APIEndpoint: Equatable {
    /// `/v1/canvases`: list (GET) and create (POST).
    case canvases
    /// `/v1/canvases/{id}`: read (GET), create with this id (POST), import (PUT), delete (DELETE).
    case canvas(String)
    /// `/v1/canvases/{id}/history`: the op log (GET).
    case history(String)
    /// `/v1/canvases/{id}/export`: the canvas as `snapboard-server export` prints it, which PUT takes (GET).
    case export(String)
    /// `/v1/canvases/…` with a malformed canvas id (400).
    case malformed(String)
    /// Anything else: `/healthz`, `/metrics`, the browser client, or a 404.
    case other

    init(path: String) {
        guard path.hasPrefix(CanvasAddress.prefix) || path == "/v1/canvases" else {
            self = .other
            return
        }
        if path == "/v1/canvases" {
            self = .canvases
            return
        }
        var rest = Substring(path.dropFirst(CanvasAddress.prefix.count))
        let part = ["/history", "/export"].first { rest.hasSuffix($0) }
        if let part { rest = rest.dropLast(part.count) }
        guard CanvasAddress.isValidCanvasID(String(rest)) else {
            self = .malformed("canvas ids are 1–64 characters of [A-Za-z0-9_-]")
            return
        }
        switch part {
        case "/history": self = .history(String(rest))
        case "/export": self = .export(String(rest))
        default: self = .canvas(String(rest))
        }
    }

    /// The methods the path answers, for the `Allow` of a 405.
    var methods: [String] {
        switch self {
        case .canvases: ["GET", "POST"]
        case .canvas: ["GET", "POST", "PUT", "DELETE"]
        case .history, .export, .malformed, .other: ["GET"]
        }
    }

    /// The canvas the path names, whose token a reader needs.
    var canvas: String? {
        switch self {
        case .canvas(let id), .history(let id), .export(let id): id
        case .canvases, .malformed, .other: nil
        }
    }
}

/// An HTTP request accepted for routing; a POST or PUT waits in `SocketState.receiving` for its body.
struct APIRequest {
    var method: String
    var endpoint: APIEndpoint
    var path: String
    var arguments: [String]
    var ifNoneMatch: String?
    var body: [UInt8] = []

    /// The decoded value of query parameter `name`, if given.
    func argument(_ name: String) -> String? {
        arguments.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    /// Whether the method changes canvases: those need the admin token once one is configured.
    var changesCanvases: Bool { method != "GET" }
}

extension Server {
    /// Starts answering an HTTP request: checks the method, the Host, the token, then serves it, after its
    /// body has arrived for a POST or PUT. Storage work runs on the journal's thread, never here.
    func request(_ socket: LWSSocket, path: String, ifNoneMatch: String?) -> Int32 {
        let method = socket.method
        let endpoint = APIEndpoint(path: path)
        let arguments = socket.decodedArguments
        let request = APIRequest(method: method, endpoint: endpoint, path: path, arguments: arguments, ifNoneMatch: ifNoneMatch)
        if case .malformed(let why) = endpoint { return respondNow(socket, .error(400, "bad_request", why)) }
        if misrouted(endpoint.canvas) {
            // Another shard's canvas, asked on a kept-alive connection: asked again on a new one, the
            // acceptor places it on that shard.
            return answerAndClose(socket, HTTPResponse(307, "application/json", [],
                                                       headers: [("Location", Self.location(path: path, arguments: arguments))]))
        }
        guard endpoint.methods.contains(method) else {
            countRefusal("method")
            let allowed = endpoint.methods.joined(separator: ", ")
            var response = HTTPResponse.error(405, "method_not_allowed", "\(method) is not allowed here; use \(allowed)")
            response.headers.append(("Allow", allowed))
            response.headers.append(("Connection", "close"))
            return respondNow(socket, response)
        }
        var queryToken = request.argument("token")
        if case .canvas = endpoint, method == "GET" {
            // A reader's query is checked as a WebSocket's would be (a bad role or zoom is a 400).
            switch CanvasAddress.route(path: path, decodedArguments: arguments) {
            case .canvas(let address): queryToken = address.token
            case .badRequest(let why): return respondNow(socket, .error(400, "bad_request", why))
            case .notFound: break
            }
        }
        if let refusal = refusal(socket, request, queryToken: queryToken) { return respondNow(socket, refusal) }
        let declared = socket.header(WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap { Int($0) }
        guard method == "POST" || method == "PUT" else {
            // A body no answer reads: refused before it is read, since libwebsockets 4.1 would hand what
            // follows it to HTTP_BODY_COMPLETION over and over while the answer waits for storage.
            if let declared, declared > 0 { return answerAndClose(socket, .error(400, "bad_request", "a \(method) takes no body")) }
            return serve(socket, request)
        }
        // Without a length libwebsockets 4.1 reads a POST's or PUT's body until the peer closes: ask for one.
        guard let length = declared, length >= 0 else {
            return answerAndClose(socket, .error(411, "length_required", "a \(method) needs a Content-Length (0 for no body)"))
        }
        guard length <= options.limits.requestBodyBytes else {
            countRefusal("body")
            return answerAndClose(socket, .error(413, "too_large", "request bodies are limited to \(options.limits.requestBodyBytes) bytes"))
        }
        guard length > 0 else { return serve(socket, request) }
        sockets[socket.key] = .receiving(request)
        return 0
    }

    /// Answers a request whose body will not be read, and closes: libwebsockets 4.1 writes nothing while it
    /// expects a body, so the answer is written here, in the request's own callback.
    private func answerAndClose(_ socket: LWSSocket, _ response: HTTPResponse) -> Int32 {
        _ = socket.writeHeaders(status: response.status, contentType: response.contentType, length: response.body.count,
                                extra: response.headers + [("Connection", "close")])
            && socket.write(response.body, mode: LWS_WRITE_HTTP_FINAL)
        return -1
    }

    /// Why the request is refused before it is served (Host, token, admin), or nil.
    private func refusal(_ socket: LWSSocket, _ request: APIRequest, queryToken: String?) -> HTTPResponse? {
        let path = request.path
        // /healthz tells nothing but that the server is up: health checkers reach it by whatever Host they use.
        guard path != "/healthz" else { return nil }
        // Changes and the listing are the admin's: they carry the admin token, not a canvas's.
        let needsAdmin = request.changesCanvases || request.endpoint == .canvases || path == "/metrics"
        if case .refused(let status, let reason, let message) = admit(socket, canvas: needsAdmin ? nil : request.endpoint.canvas,
                                                                      queryToken: queryToken, upgrade: false) {
            countRefusal(reason)
            return .error(status, status == 401 ? "unauthorized" : "forbidden", message)
        }
        guard needsAdmin else { return nil }
        // A server that requires tokens but has no admin token keeps these closed rather than open.
        guard admitsAdmin(socket, queryToken: queryToken), path == "/metrics" || options.tokens == nil || options.adminToken != nil else {
            countRefusal("admin")
            let what = path == "/metrics" ? "/metrics" : request.endpoint == .canvases && !request.changesCanvases ? "listing canvases" : "changing canvases"
            return .error(401, "unauthorized", "\(what) needs the admin token (--admin-token)")
        }
        return nil
    }

    /// Serves a request that passed its checks, with its body when it has one.
    func serve(_ socket: LWSSocket, _ request: APIRequest) -> Int32 {
        sockets[socket.key] = .http(nil)
        switch (request.method, request.endpoint) {
        case ("GET", .canvases): return listCanvases(socket, arguments: request.arguments)
        case ("POST", .canvases): return createCanvas(socket, body: request.body)
        case ("POST", .canvas(let id)): return createCanvas(socket, body: request.body, id: id)
        case ("GET", .canvas(let id)):
            if let at = request.argument("at") { return canvasAt(socket, id, at: at) }
            return readCanvas(socket, id)
        case ("PUT", .canvas(let id)): return importCanvas(socket, id, body: request.body)
        case ("DELETE", .canvas(let id)): return deleteCanvas(socket, id)
        case ("GET", .history(let id)): return history(socket, id, arguments: request.arguments)
        case ("GET", .export(let id)): return exportCanvas(socket, id)
        // Both speak for the whole server: every shard (or the one server) gives its part.
        case ("GET", .other) where request.path == "/healthz":
            return gather(socket, { $0.health }, answer: { _, parts in Self.healthResponse(parts) })
        case ("GET", .other) where request.path == "/metrics":
            return gather(socket, { $0.shardFigures() }, answer: { server, parts in
                HTTPResponse(200, "text/plain; version=0.0.4", Array(server.prometheusText(parts).utf8))
            })
        default: return respondNow(socket, httpResponse(path: request.path, ifNoneMatch: request.ifNoneMatch))
        }
    }

    // MARK: Reading

    /// `GET /v1/canvases/{id}`: the live canvas; a stored one that is not in memory is loaded first, on the
    /// journal's thread. Reading never creates a canvas: one that was never stored is a 404.
    private func readCanvas(_ socket: LWSSocket, _ id: String) -> Int32 {
        if let room = registry.rooms[id] { return respondNow(socket, HTTPResponse(200, "application/json", room.snapshotJSON)) }
        guard registry.rooms.count + registry.loadingCount < canvasLimit else {
            countRefusal("canvases")
            return respondNow(socket, .error(503, "unavailable", "too many canvases are open"))
        }
        registry.lookUp(id, creating: false) { [unowned self] lookup in
            guard case .http(nil)? = sockets[socket.key] else { return }  // the client left
            switch lookup {
            case .room(let room): respond(socket, HTTPResponse(200, "application/json", room.snapshotJSON))
            case .absent: respond(socket, .error(404, "not_found", "no canvas \(id)"))
            case .unavailable: respond(socket, .error(503, "unavailable"))
            }
        }
        return 0
    }

    /// `GET /v1/canvases?prefix=&after=&limit=`: stored canvases in id order, read on the journal's thread
    /// without loading any; a loaded one also says how many shapes it holds.
    private func listCanvases(_ socket: LWSSocket, arguments: [String]) -> Int32 {
        let q: CanvasListQuery
        switch CanvasListQuery.parse(arguments) {
        case .success(let parsed): q = parsed
        case .failure(let why): return respondNow(socket, .error(400, "bad_request", why.message))
        }
        return fromStore(socket) { store in
            try store.summaries(prefix: q.prefix, after: q.after, limit: q.limit + 1)
        } then: { server, key, summaries in
            // The loaded canvases among them say more, from the shard that holds each.
            let ids = summaries.map(\.id)
            server.gather(awaiting: key) { shard in shard.loadedFigures(ids) } answer: { server, parts in
                let loaded = parts.reduce(into: [:]) { all, part in all.merge(part) { a, _ in a } }
                return HTTPResponse(200, "application/json", server.canvasList(summaries, limit: q.limit, loaded: loaded))
            }
        }
    }

    /// `GET /v1/canvases/{id}?at=SEQ`: the committed canvas right after seq SEQ, rebuilt on the journal's
    /// thread from the checkpoint and the log (after every commit made so far is written). Loads nothing.
    private func canvasAt(_ socket: LWSSocket, _ id: String, at: String) -> Int32 {
        guard let seq = Int(at), seq >= 0 else { return respondNow(socket, .error(400, "bad_request", "at must be a seq (a whole number ≥ 0)")) }
        let defaults = options.canvas
        // The replay and its JSON are the journal thread's work; the service thread only sends the bytes.
        return answerFromStore(socket) { store -> (past: PastCanvas, json: [UInt8])? in
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
    private func history(_ socket: LWSSocket, _ id: String, arguments: [String]) -> Int32 {
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
        // Read and serialised on the journal thread: up to 1,000 ops of JSON is no work for the service thread.
        return answerFromStore(socket) { store -> [UInt8]? in
            guard try store.summaries(prefix: id, after: nil, limit: 1).first?.id == id else { return nil }
            let commits = try store.history(id, after: from, limit: count + 1)
            let oldest = from == 0 && commits.first != nil ? commits.first?.record.seq : try store.history(id, after: 0, limit: 1).first?.record.seq
            return Self.historyJSON(id, commits, limit: count, oldest: oldest)
        } answer: { _, json in
            guard let json else { return .error(404, "not_found", "no canvas \(id)") }
            return HTTPResponse(200, "application/json", json)
        }
    }

    /// `GET /v1/canvases/{id}/export`: the committed canvas in the export format (what `PUT` imports),
    /// from the store after every commit so far is written; loads nothing. Moving a canvas between nodes
    /// is this, a `PUT` on the new node and a `DELETE` on the old (README, "Running a cluster").
    private func exportCanvas(_ socket: LWSSocket, _ id: String) -> Int32 {
        let defaults = options.canvas
        return answerFromStore(socket) { store -> [UInt8]? in
            let stored = try store.load(id)
            guard stored.snapshot != nil || !stored.log.isEmpty else { return nil }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return Array(try encoder.encode(try stored.recovered(id: id, default: defaults).committedSnapshot))
        } answer: { _, export in
            guard let export else { return .error(404, "not_found", "no canvas \(id)") }
            return HTTPResponse(200, "application/json", export)
        }
    }

    /// `{"canvas","oldest","ops":[{"seq","at","client","opId","undoes"?,"redoes"?,"op"}],"next"}`.
    static func historyJSON(_ id: String, _ commits: [LoggedCommit], limit: Int, oldest: Int?) -> [UInt8] {
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

    // MARK: Changing

    /// `POST /v1/canvases`: a new canvas with its own settings, stored at seq 0 before the answer (201).
    /// `POST /v1/canvases/{id}` names the canvas in the path, where a proxy that routes by path sees it.
    private func createCanvas(_ socket: LWSSocket, body: [UInt8], id pathID: String? = nil) -> Int32 {
        // A null would read as a setting left out: it is refused instead, so a typo in a client cannot pass.
        if let parsed = try? JSONValue.parse(body), Self.holdsNull(parsed) {
            return respondNow(socket, .error(400, "bad_request", "the body is not canvas settings: null is no setting (leave the key out)"))
        }
        let settings: CanvasSettings
        do {
            settings = try JSONDecoder().decode(CanvasSettings.self, from: Data(body))
        } catch {
            let why = body.isEmpty ? "the body is empty: send {} for the server's settings" : Self.describe(error)
            return respondNow(socket, .error(400, "bad_request", "the body is not canvas settings: \(why)"))
        }
        if let pathID, let given = settings.id, given != pathID {
            return respondNow(socket, .error(400, "bad_request", "the body's id \(given) is not the path's \(pathID)"))
        }
        var chosen = pathID ?? settings.id ?? Epoch.randomID()
        if pathID == nil, settings.id == nil {
            // A shard names a new canvas after one of its own.
            while misrouted(chosen) { chosen = Epoch.randomID() }
        }
        let id = chosen
        if misrouted(id), CanvasAddress.isValidCanvasID(id) {
            // The body names another shard's canvas: posted again to its path, the acceptor routes it there.
            return respondNow(socket, HTTPResponse(307, "application/json", [], headers: [("Location", CanvasAddress.prefix + id)]))
        }
        guard CanvasAddress.isValidCanvasID(id) else {
            return respondNow(socket, .error(400, "bad_request", "canvas ids are 1–64 characters of [A-Za-z0-9_-]"))
        }
        let config: CanvasConfig
        switch settings.config(defaults: options.canvas, shapeLimit: options.canvas.maxShapes) {
        case .success(let c): config = c
        case .failure(let why): return respondNow(socket, .error(400, "bad_request", why.message))
        }
        guard registry.rooms[id] == nil, !registry.isBusy(id) else { return respondNow(socket, .error(409, "conflict", "canvas \(id) exists")) }
        let snapshot = CanvasSnapshot(id: id, config: config, seq: 0, rng: SeededGenerator(seed: id).state, shapes: [])
        _ = registry.hold(id)
        return answerFromStore(socket) { store -> Bool in
            guard try store.summaries(prefix: id, after: nil, limit: 1).first?.id != id else { return false }
            try store.write([.checkpoint(snapshot, pruneBefore: 0)])
            return true
        } answer: { server, created in
            server.registry.release(id)
            guard created else { return .error(409, "conflict", "canvas \(id) exists") }
            server.logger.info("canvas created", metadata: ["canvas": "\(id)"])
            return HTTPResponse(201, "application/json", ServerMessage.canvasDocument(id: id, seq: 0, config: config, shapes: [], sessions: 0),
                                headers: [("Location", CanvasAddress.prefix + id)])
        } failed: { server in
            server.registry.release(id)
        }
    }

    /// `DELETE /v1/canvases/{id}`: closes its sessions with 4004 and removes it and its log (204).
    private func deleteCanvas(_ socket: LWSSocket, _ id: String) -> Int32 {
        guard !registry.isBusy(id) else { return respondNow(socket, .error(409, "conflict", "canvas \(id) is being loaded or changed; try again")) }
        let loaded = registry.hold(id) != nil
        closeSessions(of: id, code: CloseCode.canvasDeleted, reason: "canvas deleted")
        return answerFromStore(socket) { store in
            try store.delete(id)
        } answer: { server, deleted in
            server.registry.release(id)
            guard deleted || loaded else { return .error(404, "not_found", "no canvas \(id)") }
            server.logger.info("canvas deleted", metadata: ["canvas": "\(id)"])
            return HTTPResponse(204, "application/json", [])
        } failed: { server in
            server.registry.release(id)
        }
    }

    /// `PUT /v1/canvases/{id}`: replaces the canvas with an export (`snapboard-server export`), closing its
    /// sessions with 4005 so they reconnect to it (200).
    private func importCanvas(_ socket: LWSSocket, _ id: String, body: [UInt8]) -> Int32 {
        var snapshot: CanvasSnapshot
        do {
            snapshot = try JSONDecoder().decode(CanvasSnapshot.self, from: Data(body))
        } catch {
            return respondNow(socket, .error(400, "bad_request", "the body is not a canvas export: \(Self.describe(error))"))
        }
        // The path names the canvas: an export of one canvas may be imported as another.
        snapshot.id = id
        if let problem = snapshot.problem { return respondNow(socket, .error(400, "bad_request", "the export is not a canvas: \(problem)")) }
        guard snapshot.config.maxShapes <= options.canvas.maxShapes else {
            return respondNow(socket, .error(400, "bad_request", "maxShapes may be at most \(options.canvas.maxShapes) here"))
        }
        guard let canvas = try? Canvas(snapshot: snapshot) else { return respondNow(socket, .error(400, "bad_request", "the export is not a canvas")) }
        guard !registry.isBusy(id) else { return respondNow(socket, .error(409, "conflict", "canvas \(id) is being loaded or changed; try again")) }
        _ = registry.hold(id)
        closeSessions(of: id, code: CloseCode.canvasReplaced, reason: "canvas replaced")
        let stored = canvas.committedSnapshot
        return answerFromStore(socket) { store -> [UInt8] in
            try store.replace(with: stored)
            return ServerMessage.canvasDocument(id: id, seq: stored.seq, config: stored.config, shapes: stored.shapes, sessions: 0)
        } answer: { server, json in
            server.registry.release(id)
            server.logger.info("canvas imported", metadata: ["canvas": "\(id)", "seq": "\(stored.seq)"])
            return HTTPResponse(200, "application/json", json)
        } failed: { server in
            server.registry.release(id)
        }
    }

    /// Closes every session on canvas `id`, whose room is gone: what they still send is dropped.
    private func closeSessions(of id: String, code: UInt16, reason: String) {
        for case .websocket(let conn) in sockets.values where conn.canvas == id {
            conn.joined = false
            conn.backlog.removeAll()
            conn.outbox.requestClose(code: code, reason: reason)
        }
    }

    // MARK: Storage

    /// Runs `work` on the journal's thread, after every write asked for before it, then answers the request
    /// on the service thread with what `answer` makes of the result (503 when storage failed, after `failed`).
    private func answerFromStore<T: Sendable>(
        _ socket: LWSSocket, _ work: @escaping @Sendable (CanvasStore) throws -> T,
        answer: @escaping @Sendable (Server, T) -> HTTPResponse, failed: @escaping @Sendable (Server) -> Void = { _ in }
    ) -> Int32 {
        fromStore(socket, work, then: { server, key, value in
            if let socket = server.awaitingStore.removeValue(forKey: key) { server.respond(socket, answer(server, value)) }
        }, failed: failed)
    }

    /// Runs `work` on the journal's thread, after every write asked for before it, then hands its result to
    /// `then` on the service thread, with the key the request waits under in `awaitingStore` (gone if the
    /// client left). When storage fails, `failed` runs and the request is answered 503.
    private func fromStore<T: Sendable>(
        _ socket: LWSSocket, _ work: @escaping @Sendable (CanvasStore) throws -> T,
        then: @escaping @Sendable (Server, Int, T) -> Void, failed: @escaping @Sendable (Server) -> Void = { _ in }
    ) -> Int32 {
        sockets[socket.key] = .http(nil)
        awaitingStore[socket.key] = socket
        let (context, key) = (self.context, socket.key)
        journal.read { [unowned self] store in
            let result = Result { try work(store) }
            context.perform { [unowned self] in
                switch result {
                case .success(let value):
                    then(self, key, value)
                case .failure(let error):
                    failed(self)
                    logger.error("storage failed answering a request", metadata: ["error": "\(error)"])
                    if let socket = awaitingStore.removeValue(forKey: key) { respond(socket, .error(503, "unavailable", "storage failed")) }
                }
            }
        }
        return 0
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
