import CLibWebSockets
import SnapboardProtocol
import SnapboardWeb

#if canImport(Glibc)
import Glibc
#endif

/// One spelling per path (`RequestPath`). libwebsockets 4.1 decodes and normalises a request's path before
/// any callback sees it, and keeps no copy of the raw line, so the check runs where the raw line is still
/// in the kernel: the acceptor of a server with `--shards`, which peeks at it. A proxy in front of any
/// server normalises and refuses the same paths before it hashes (`deploy/haproxy.cfg`).
extension Server {
    static let nonCanonicalMessage = "the path is not in canonical form: no //, . or .. segments, percent-encoding, ; or +"

    /// Answers 400 `non_canonical_path` on a socket nothing has read yet (the acceptor's), then the caller
    /// closes it.
    static func answerNonCanonical(_ fd: Int32) {
        let body = #"{"error":"non_canonical_path","message":"\#(nonCanonicalMessage)"}"#
        let answer = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        _ = answer.withCString { send(fd, $0, strlen($0), Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }

    /// Answers 404 with the bad-canvas page on a socket nothing has read yet (the acceptor's, for a `/c/`
    /// path that is not canonical), then the caller closes it.
    static func answerBadCanvas(_ fd: Int32, _ page: WebAssets.Asset) {
        let head = ["HTTP/1.1 404 Not Found", "Connection: close", "Content-Type: \(page.contentType)", "Content-Length: \(page.body.count)"]
            + page.headers.filter { $0.0 != "ETag" }.map { "\($0.0): \($0.1)" }
        let answer = Array((head.joined(separator: "\r\n") + "\r\n\r\n").utf8) + page.body
        _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }
}
