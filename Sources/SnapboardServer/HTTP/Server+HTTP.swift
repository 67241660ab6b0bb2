import CLibWebSockets
import SnapboardLWS

extension Server {
    /// `HTTP`: a request line and headers arrived. Routing is `request(_:path:ifNoneMatch:)`'s.
    func httpRequest(_ socket: LWSSocket, _ input: UnsafeMutableRawPointer?) -> Int32 {
        bodiesCompleted.remove(socket.key)
        let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
        return request(socket, path: path, ifNoneMatch: socket.header(WSI_TOKEN_HTTP_IF_NONE_MATCH))
    }

    /// `HTTP_BODY`: a body is kept for the request waiting for it, else (a refused request's) read and dropped.
    func httpBody(_ socket: LWSSocket, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        if case .receiving(var request)? = sockets[socket.key], let input {
            sockets[socket.key] = .http(nil)  // no copy of the body while it grows
            // Its declared length at once: no copies as it grows, and pages count only once written.
            if request.body.isEmpty, let upload = uploads[socket.key] { request.body.reserveCapacity(upload.declared) }
            request.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
            sockets[socket.key] = .receiving(request)
        }
        return 0
    }

    /// `HTTP_BODY_COMPLETION`: the body is whole, so the request is served.
    ///
    /// libwebsockets 4.1 calls this again, without end, for bytes that follow a body (a pipelined request)
    /// until the answer is written, and never lets the answer be written meanwhile: a second call for one
    /// request closes the connection instead.
    func httpBodyCompleted(_ socket: LWSSocket) -> Int32 {
        guard bodiesCompleted.insert(socket.key).inserted else { return -1 }
        endUpload(socket.key)
        switch sockets[socket.key] {
        case .receiving(let request)?:
            return serve(socket, request)
        case .http(_?)?:
            // libwebsockets writes nothing while a body is still arriving: the answer goes out now.
            socket.requestWritable()
            return 0
        default:
            return 0
        }
    }

    /// `CLOSED_HTTP`: the HTTP side of a connection ended; a WebSocket's own end is `closed(_:)`.
    func httpClosed(_ socket: LWSSocket) -> Int32 {
        lingerer.linger(socket.fd)
        awaitingStore[socket.key] = nil
        bodiesCompleted.remove(socket.key)
        endUpload(socket.key)
        abandonedReads.removeValue(forKey: socket.key)?.withLock { $0 = true }
        switch sockets[socket.key] {
        case .websocket?:
            break
        case .upgrading(_, _, let peer)?:
            releaseConnection(peer: peer)  // the upgrade failed after its place was taken
            sockets[socket.key] = nil
        default:
            sockets[socket.key] = nil
        }
        return 0
    }

    func respondNow(_ socket: LWSSocket, _ response: HTTPResponse) -> Int32 {
        respond(socket, response)
        return 0
    }

    func respond(_ socket: LWSSocket, _ response: HTTPResponse) {
        sockets[socket.key] = .http(response)
        socket.requestWritable()
    }

    /// `HTTP_WRITEABLE`: headers in one writable callback, the body in the next, one write each.
    func writeHTTP(_ socket: LWSSocket) -> Int32 {
        guard case .http(var response?)? = sockets[socket.key] else { return 0 }
        if !response.headersSent {
            guard socket.writeHeaders(status: response.status, contentType: response.contentType, length: response.body.count,
                                      extra: response.headers)
            else { return -1 }
            if response.body.count == 0 {
                sockets[socket.key] = nil
                return socket.completeTransaction() ? 0 : -1
            }
            response.headersSent = true
            sockets[socket.key] = .http(response)
            socket.requestWritable()
            return 0
        }
        sockets[socket.key] = nil
        return socket.writeBody(response.body) ? 0 : -1
    }

    /// The response to a plain HTTP GET outside the canvas API and the server's own status (`/healthz` and
    /// `/metrics`, gathered from every shard): a file of the browser client, or 404.
    func httpResponse(path: String, ifNoneMatch: String? = nil) -> HTTPResponse {
        if let asset = web.asset(for: path) {
            // A current copy in the browser gets 304 and no body.
            let current = asset.isCurrent(ifNoneMatch: ifNoneMatch)
            return HTTPResponse(current ? 304 : 200, asset.contentType, current ? [] : asset.body, headers: asset.headers)
        }
        if let page = web.badCanvasPage(for: path) {
            // A person followed a link or typed a name: a page that says what is wrong, not a JSON body.
            return HTTPResponse(404, page.contentType, page.body, headers: page.headers.filter { $0.0 != "ETag" })
        }
        return .error(404, "not_found")
    }

    /// The seq and shape count of those of canvases `ids` this server has loaded.
    func loadedFigures(_ ids: [String]) -> [String: LoadedFigures] {
        var found: [String: LoadedFigures] = [:]
        for id in ids {
            if let room = registry.rooms[id] { found[id] = LoadedFigures(seq: room.canvas.seq, shapes: room.canvas.shapes.count) }
        }
        return found
    }
}
