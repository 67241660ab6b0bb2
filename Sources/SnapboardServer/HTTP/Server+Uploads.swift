import CLibWebSockets
import SnapboardLWS

#if canImport(Glibc)
import Glibc
#endif

/// A request body being received: whose, how large it said it is, and by when it must be whole.
/// Service thread only (it holds the socket).
struct Upload {
    let socket: LWSSocket
    let peer: String
    let declared: Int
    let deadline: Double
}

/// Bounded uploads: how many bodies are received at once (in all and per address), the memory they may
/// come to, and how long each may take. A stranger who opens bodies and sends them a byte at a time holds
/// at most `--max-uploads-per-ip` of them, for at most 10 s plus their length at `--min-upload-rate`.
extension Server {
    /// Seconds every body may take on top of its length at `--min-upload-rate`.
    static let uploadGraceSeconds = 10.0

    /// A POST or PUT whose body of `length` bytes is about to be read: takes its place (and its declared
    /// bytes) in the process's budget and sets its deadline, or answers why not: 429 `too_many_uploads`
    /// (this address has as many as it may), 503 `busy` (the server has), both with `Retry-After`.
    func beginUpload(_ socket: LWSSocket, length: Int) -> HTTPResponse? {
        guard let budget = group?.uploads else { return nil }
        let peer = socket.peerAddress
        if let refused = budget.reserve(peer: peer, bytes: length) {
            countRefusal(refused.reason)
            return HTTPResponse.error(refused.status, refused.status == 429 ? "too_many_uploads" : "busy", refused.message).retrying(after: 1)
        }
        let seconds = Self.uploadGraceSeconds + Double(length) / Double(options.limits.minUploadBytesPerSecond)
        uploads[socket.key] = Upload(socket: socket, peer: peer, declared: length, deadline: now + seconds)
        return nil
    }

    /// Gives a body's place back: it is whole, or its connection ended.
    func endUpload(_ key: Int) {
        guard let upload = uploads.removeValue(forKey: key) else { return }
        group?.uploads.release(peer: upload.peer, bytes: upload.declared)
    }

    /// From the tick: a body not whole by its deadline is answered 408 `too_slow` and its connection is
    /// dropped a second later. libwebsockets writes nothing while it expects a body, so the answer is sent
    /// on the descriptor itself, as nothing else has been written on it yet (over TLS it is only dropped).
    func expireUploads(now: Double) {
        for (key, upload) in uploads {
            guard upload.deadline <= now else {
                // libwebsockets drops a body silent for its own timeout (the handshake's), unanswered, and
                // re-arms it with each chunk: ours replaces it, so a slow body is answered at its deadline.
                upload.socket.dropAfter(seconds: Int((upload.deadline - now).rounded(.up)) + 2)
                continue
            }
            endUpload(key)
            sockets[key] = .http(nil)  // what still arrives is read and dropped
            countRefusal("upload_time")
            if options.tls == nil {
                let message = "the body came slower than \(options.limits.minUploadBytesPerSecond) bytes a second"
                Self.sendDirectly(upload.socket.fd, HTTPResponse.error(408, "too_slow", message), reason: "Request Timeout")
            }
            upload.socket.dropAfter(seconds: 1)
        }
    }

    /// Writes `response` whole on descriptor `fd`, with `Connection: close`, without waiting.
    static func sendDirectly(_ fd: Int32, _ response: HTTPResponse, reason: String) {
        let head = "HTTP/1.1 \(response.status) \(reason)\r\n"
            + "Connection: close\r\nContent-Type: \(response.contentType)\r\nContent-Length: \(response.body.count)\r\n\r\n"
        let bytes = Array(head.utf8) + response.body.withUnsafeMutablePayload { start, count in Array(UnsafeBufferPointer(start: start, count: count)) }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }
}
