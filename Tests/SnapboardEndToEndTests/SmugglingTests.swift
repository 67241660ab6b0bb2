import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

/// Sends `request` as it is on a new connection to `port` and reads until the peer closes (or `seconds`
/// pass): what came back, and whether the peer closed.
func rawExchange(port: Int, _ request: String, seconds: Int = 5) throws -> (response: String, closed: Bool) {
    let fd = try connectLoopback(port: port, receiveTimeout: seconds)
    defer { close(fd) }
    let bytes = Array(request.utf8)
    var sent = 0
    while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n > 0 else { break }
        sent += n
    }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n == 0 { return (String(decoding: response, as: UTF8.self), true) }
        if n < 0 { return (String(decoding: response, as: UTF8.self), errno != EAGAIN && errno != EWOULDBLOCK) }
        response += buffer[0..<n]
    }
}

/// How many HTTP responses `text` holds (status lines).
func statusLines(_ text: String) -> [Substring] {
    text.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/1.") }
}

extension EndToEnd {
    @Suite("No request smuggling: ambiguous framing is refused and the connection closed", .serialized)
    struct SmugglingTests {
        static let upgradeHead = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"

        /// A request that would create canvas `id` if it were ever served: the smuggled one.
        static func smuggled(_ id: String) -> String {
            "POST /v1/canvases/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n"
        }

        /// `body` as one chunk and the last chunk.
        static func chunked(_ body: String) -> String {
            String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n"
        }

        @Test("[P1] A percent-encoded line break in a URL (%0A, %0D%0A), which would end the request line early, is one 400 bad_framing for an upgrade and for a GET, never a session or an answer with the query cut short")
        func encodedLineBreaks() throws {
            let server = try ServerProcess()
            for (query, target) in [("name=%0A", "/v1/canvases/lf"), ("name=a%0D%0Aclient=b", "/v1/canvases/crlf"),
                                    ("client=%0Dx", "/v1/canvases/cr"), ("x=%0A", "/healthz")] {
                let upgrade = target.hasPrefix("/v1/canvases/")
                let (response, closed) = try rawExchange(
                    port: server.port, "GET \(target)?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (upgrade ? Self.upgradeHead : "") + "\r\n")
                #expect(statusLines(response).map(String.init) == ["HTTP/1.1 400 Bad Request"], "\(query): \(response)")
                #expect(response.contains("bad_framing") && closed, "\(query): \(response)")
            }
            // The same canvases were never created, and a clean request still works.
            let listed = try httpGet(port: server.port, "/v1/canvases")
            #expect(listed.status == 200 && !listed.body.contains("crlf") && !listed.body.contains("\"lf\""), "\(listed.body)")
        }

        @Test("Transfer-Encoding, Content-Length with Transfer-Encoding, two Content-Lengths, and a body on GET, HEAD, DELETE or an upgrade: one 400 bad_framing, the connection closed, what followed never served")
        func rawSockets() throws {
            let server = try ServerProcess()
            let cases: [(String, String)] = [
                ("te-get", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n" + Self.chunked(Self.smuggled("te-get"))),
                ("te-post", "POST /v1/canvases/te-post-x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + Self.chunked("{}") + Self.smuggled("te-post")),
                ("cl-te", "POST /v1/canvases/cl-te-x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "0\r\n\r\n" + Self.smuggled("cl-te")),
                ("two-cl", "POST /v1/canvases/two-cl-x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}"
                    + Self.smuggled("two-cl")),
                ("get-body", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(Self.smuggled("get-body").utf8.count)\r\n\r\n" + Self.smuggled("get-body")),
                ("head-body", "HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(Self.smuggled("head-body").utf8.count)\r\n\r\n" + Self.smuggled("head-body")),
                ("delete-body", "DELETE /v1/canvases/nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(Self.smuggled("delete-body").utf8.count)\r\n\r\n"
                    + Self.smuggled("delete-body")),
                ("upgrade-body", "GET /v1/canvases/upgrade-body-x HTTP/1.1\r\nHost: 127.0.0.1\r\n\(Self.upgradeHead)Content-Length: \(Self.smuggled("upgrade-body").utf8.count)\r\n\r\n"
                    + Self.smuggled("upgrade-body")),
                ("upgrade-te", "GET /v1/canvases/upgrade-te-x HTTP/1.1\r\nHost: 127.0.0.1\r\n\(Self.upgradeHead)Transfer-Encoding: chunked\r\n\r\n"
                    + Self.chunked(Self.smuggled("upgrade-te"))),
            ]
            for (name, request) in cases {
                let (response, closed) = try rawExchange(port: server.port, request)
                let lines = statusLines(response)
                #expect(lines.count == 1 && lines[0].hasPrefix("HTTP/1.1 400 "), "\(name): \(response)")
                #expect(response.contains(#""error":"bad_framing""#), "\(name): \(response)")
                #expect(closed, "\(name): the connection stays open")
            }
            // Nothing smuggled was served: no canvas was created by any of them.
            for (name, _) in cases {
                #expect(try httpGet(port: server.port, "/v1/canvases/\(name)").status == 404, "\(name) was served")
            }
            // A plain POST with one Content-Length still works, and so does Content-Length: 0 on a GET.
            #expect(try http(port: server.port, "POST", "/v1/canvases/plain", body: "{}").status == 201)
            let zero = try rawExchange(port: server.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            #expect(zero.response.hasPrefix("HTTP/1.1 200 OK"), "\(zero.response)")
        }

        @Test("Through a real HAProxy, a GET with Transfer-Encoding: chunked whose body is a second request gets one 400, and the second is never served")
        func throughHAProxy() throws {
            let server = try ServerProcess()
            let proxy = try ProxyProcess(nodes: [server.port])
            let attack = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n" + Self.chunked(Self.smuggled("through-proxy"))
            let (response, _) = try rawExchange(port: proxy.port, attack + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let lines = statusLines(response)
            #expect(lines.first?.hasPrefix("HTTP/1.1 400 ") == true, "\(response)")
            #expect(!response.contains("201 Created"), "\(response)")
            #expect(try httpGet(port: server.port, "/v1/canvases/through-proxy").status == 404, "the smuggled POST was served")
            // Others' requests through the same proxy meanwhile get their own answers.
            for _ in 0..<5 {
                _ = try rawExchange(port: proxy.port, attack, seconds: 1)
                #expect(try httpGet(port: proxy.port, "/healthz").status == 200)
            }
            #expect(try httpGet(port: server.port, "/v1/canvases/through-proxy").status == 404)
            withExtendedLifetime(proxy) {}
        }
    }
}
