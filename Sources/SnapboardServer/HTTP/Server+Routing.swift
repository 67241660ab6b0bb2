import CLibWebSockets
import Foundation
import SnapboardAuth
import SnapboardLWS
import SnapboardProtocol

extension Server {
    /// Starts answering an HTTP request: checks the method, the Host, the token, then serves it, after its
    /// body has arrived for a POST or PUT. Storage work runs on the journal's thread, never here.
    func request(_ socket: LWSSocket, path: String, ifNoneMatch: String?) -> Int32 {
        let method = socket.method
        let endpoint = APIEndpoint(path: path)
        let arguments = socket.decodedArguments
        var request = APIRequest(method: method, endpoint: endpoint, path: path, arguments: arguments, ifNoneMatch: ifNoneMatch)
        // Before anything else: no byte of a request whose end is in doubt may be read as the next one.
        if let why = framingError(socket, method: method, upgrade: false) {
            countRefusal("framing")
            return answerAndClose(socket, .error(400, "bad_framing", why))
        }
        if socket.decodedPath != path {
            // A `;` or `&` in the raw path: the rest of it would be dropped (Server+CanonicalPath.swift).
            countRefusal("path")
            return answerAndClose(socket, .error(400, "non_canonical_path", Self.nonCanonicalMessage))
        }
        if case .malformed(let why) = endpoint { return respondNow(socket, .error(400, "bad_request", why)) }
        if misrouted(endpoint.canvas) {
            // Another shard's canvas, asked on a kept-alive connection: asked again on a new one, the
            // acceptor places it on that shard.
            return answerAndClose(socket, HTTPResponse(307, "application/json", [],
                                                       headers: [("Location", Self.location(path: path, arguments: arguments))]))
        }
        // Another node of the cluster owns the canvas (`Server+Ownership.swift`): taken now, answered once
        // the request has passed its Host, Origin and token checks (a stranger learns nothing of where it is).
        let moved = endpoint.canvas != nil ? takeMovedOwner(socket.fd, decoded: arguments) : nil
        guard endpoint.methods.contains(method) else {
            countRefusal("method")
            let allowed = endpoint.methods.joined(separator: ", ")
            var response = HTTPResponse.error(405, "method_not_allowed", "\(method) is not allowed here; use \(allowed)")
            response.headers.append(("Allow", allowed))
            return answerAndClose(socket, response)
        }
        let declared = socket.header(WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap { Int($0) }
        if !(method == "POST" || method == "PUT"), let declared, declared > 0 {
            // A body no answer reads: refused before it is read, since libwebsockets 4.1 would hand what
            // follows it to HTTP_BODY_COMPLETION over and over while the answer waits for storage.
            countRefusal("framing")
            return answerAndClose(socket, .error(400, "bad_framing", "a \(method) takes no body"))
        }
        if endpoint == .tokens, let absent = mintingAbsent() { return respondNow(socket, absent) }
        var queryToken = request.argument("token")
        if case .canvas = endpoint, method == "GET" {
            // A reader's query is checked as a WebSocket's would be (a bad role or zoom is a 400).
            switch CanvasAddress.route(path: path, decodedArguments: arguments) {
            case .canvas(let address): queryToken = address.token
            case .badRequest(let why): return respondNow(socket, .error(400, "bad_request", why))
            case .notFound: break
            }
        }
        switch authorise(socket, request, queryToken: queryToken) {
        case .refused(let refusal): return respondNow(socket, refusal)
        case .granted(let grant): request.grant = grant
        }
        if let (owner, encoded) = moved {
            countRefusal("moved")
            return answerAndClose(socket, Self.redirect(to: owner, path: path, encoded: encoded))
        }
        if endpoint.canvas != nil, !leaseIsFresh {
            countRefusal("no_lease")
            return answerAndClose(socket, .error(503, "no_lease", "this node has lost its lease on the database: try another"))
        }
        guard method == "POST" || method == "PUT" else { return serve(socket, request) }
        // Without a length libwebsockets 4.1 reads a POST's or PUT's body until the peer closes: ask for one.
        guard let length = declared, length >= 0 else {
            return answerAndClose(socket, .error(411, "length_required", "a \(method) needs a Content-Length (0 for no body)"))
        }
        guard length <= options.limits.requestBodyBytes else {
            countRefusal("body")
            return answerAndClose(socket, .error(413, "too_large", "request bodies are limited to \(options.limits.requestBodyBytes) bytes"))
        }
        guard Self.isJSONContentType(socket.header(WSI_TOKEN_HTTP_CONTENT_TYPE)) else {
            countRefusal("content_type")
            return answerAndClose(socket, .error(415, "unsupported_media_type", "a \(method) body must be sent as Content-Type: application/json"))
        }
        guard length > 0 else { return serve(socket, request) }
        if let refused = beginUpload(socket, length: length) { return answerAndClose(socket, refused) }  // Server+Uploads.swift
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

    /// What the access checks decided about an HTTP request.
    private enum Authorisation {
        case granted(APIRequest.Grant)
        case refused(HTTPResponse)
    }

    /// Whether the request may be served, and as whom (Host, token, admin).
    private func authorise(_ socket: LWSSocket, _ request: APIRequest, queryToken: String?) -> Authorisation {
        let path = request.path
        // /healthz tells nothing but that the server is up: health checkers reach it by whatever Host they use.
        // An access check makes its own checks, which it reports rather than refuses (`answerAccess`).
        guard path != "/healthz" else { return .granted(.anyone) }
        if case .access = request.endpoint { return .granted(.anyone) }
        if request.endpoint == .tokens || (request.endpoint == .canvases && !request.changesCanvases) {
            return authoriseAdminOrToken(socket, request, queryToken: queryToken)
        }
        return refusal(socket, request, queryToken: queryToken).map(Authorisation.refused) ?? .granted(.anyone)
    }

    /// The listing and minting take the admin token or an access token, whose claims then decide what they
    /// answer; the listing is open on a server with neither. A token that is neither counts as an admin guess
    /// where it is not a JWT signed with the server's key.
    private func authoriseAdminOrToken(_ socket: LWSSocket, _ request: APIRequest, queryToken: String?) -> Authorisation {
        if case .refused(let status, let label, let reason, let message) = admit(socket, canvas: nil, queryToken: queryToken, upgrade: false) {
            countRefusal(label)
            return .refused(.error(status, "forbidden", message, reason: reason))
        }
        // An open server lists to anyone, whatever credential a client sends along.
        if options.adminToken == nil, options.tokens == nil { return .granted(.anyone) }
        let what = request.endpoint == .tokens ? "minting a token" : "listing canvases"
        guard let given = Self.bearer(socket.header(WSI_TOKEN_HTTP_AUTHORIZATION)) ?? queryToken else {
            countRefusal(TokenError.missing.label)
            return .refused(.error(401, "unauthorized", "\(what) needs an access token or the admin token (--admin-token)",
                                   reason: TokenError.missing.reason))
        }
        let peer = options.adminToken != nil ? socket.peerAddress : ""
        if let admin = options.adminToken {
            if let held = adminThrottle(peer) { return .refused(held) }
            if AdminToken.matches(given, admin) { return .granted(.admin) }
        }
        guard let tokens = options.tokens else {
            // Only the admin token opens these here, and this was not it.
            countRefusal("admin")
            if options.adminToken != nil { adminFailed(peer) }
            return .refused(.error(401, "unauthorized", "\(what) needs the admin token (--admin-token)", reason: "admin"))
        }
        do throws(TokenError) {
            return .granted(.token(try tokens.verify(given, now: Date().timeIntervalSince1970)))
        } catch {
            countRefusal(error.label)
            if options.adminToken != nil, Self.guessReasons.contains(error.label) { adminFailed(peer) }
            return .refused(.error(401, "unauthorized", error.description, reason: error.reason))
        }
    }

    /// Why the request is refused before it is served (Host, token, admin), or nil.
    private func refusal(_ socket: LWSSocket, _ request: APIRequest, queryToken: String?) -> HTTPResponse? {
        let path = request.path
        // Changes are the admin's: they carry the admin token, not a canvas's.
        let needsAdmin = request.changesCanvases || path == "/metrics"
        // The admin token also reads any canvas where a JWT would be needed (export, history: moving
        // canvases between nodes). Wherever it is tried, an address that failed it too often waits.
        let given = Self.bearer(socket.header(WSI_TOKEN_HTTP_AUTHORIZATION)) ?? queryToken
        let readsCanvas = !needsAdmin && request.endpoint.canvas != nil && options.tokens != nil && given != nil
        let triesAdmin = options.adminToken != nil && (needsAdmin || readsCanvas)
        let peer = triesAdmin ? socket.peerAddress : ""
        if triesAdmin, let held = adminThrottle(peer) { return held }
        // (`admitsAdmin` passes everyone on a server with no admin token: it must not stand in for a JWT there.)
        let asAdmin = triesAdmin && readsCanvas && admitsAdmin(socket, queryToken: queryToken)
        if case .refused(let status, let label, let reason, let message) = admit(socket, canvas: needsAdmin || asAdmin ? nil : request.endpoint.canvas,
                                                                                 queryToken: queryToken, upgrade: false) {
            countRefusal(label)
            // Neither the admin token nor a signed JWT: a guess. (An expired or other-canvas JWT is not.)
            if triesAdmin, status == 401, Self.guessReasons.contains(label) { adminFailed(peer) }
            return .error(status, status == 401 ? "unauthorized" : "forbidden", message, reason: reason)
        }
        guard needsAdmin else { return nil }
        // A server that requires tokens but has no admin token keeps these closed rather than open.
        guard admitsAdmin(socket, queryToken: queryToken), path == "/metrics" || options.tokens == nil || options.adminToken != nil else {
            countRefusal("admin")
            if triesAdmin, given != nil { adminFailed(peer) }
            let what = path == "/metrics" ? "/metrics" : "changing canvases"
            return .error(401, "unauthorized", "\(what) needs the admin token (--admin-token)", reason: given == nil ? TokenError.missing.reason : "admin")
        }
        return nil
    }

    /// Serves a request that passed its checks, with its body when it has one.
    func serve(_ socket: LWSSocket, _ request: APIRequest) -> Int32 {
        sockets[socket.key] = .http(nil)
        switch (request.method, request.endpoint) {
        case ("GET", .canvases): return listCanvases(socket, arguments: request.arguments, grant: request.grant)
        case ("GET", .access(let id)): return answerAccess(socket, id, queryToken: request.argument("token"))
        case ("POST", .tokens): return mintToken(socket, body: request.body, grant: request.grant)
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
}
