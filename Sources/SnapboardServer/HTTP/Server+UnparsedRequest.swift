import SnapboardLWS
import SnapboardProtocol

/// Requests libwebsockets 4.1 cannot parse: a method it does not know (`TRACE`, `PROPFIND`) or plain HTTP
/// sent to a TLS port. libwebsockets hands such a connection over as a raw socket (the context's fallback,
/// `CSnapboardLWS`) with the bytes it read, where it would otherwise answer a bare 403. Each is answered once
/// and closed.
extension Server {
    /// `RAW_RX`: the bytes of a request libwebsockets gave up on.
    func unparsedRequest(_ socket: LWSSocket, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        let bytes = input.map { Array(UnsafeRawBufferPointer(start: $0, count: len)) } ?? []
        let response: HTTPResponse
        if options.tls != nil && !socket.isTLS {
            response = .error(400, "bad_request", "this port speaks TLS: use https:// or wss://")
        } else if let (method, path) = Self.requestLine(bytes) {
            countRefusal("method")
            let allowed = APIEndpoint(path: path).methods.joined(separator: ", ")
            var refusal = HTTPResponse.error(405, "method_not_allowed", "\(method) is not allowed here; use \(allowed)")
            refusal.headers.append(("Allow", allowed))
            response = refusal
        } else {
            response = .error(400, "bad_request", "not an HTTP/1.1 request line")
        }
        var head = LWSSocket.statusLine(response.status) + "\r\ncontent-type: \(response.contentType)\r\n"
            + "content-length: \(response.body.count)\r\nconnection: close\r\n"
        for (name, value) in response.headers { head += "\(name.lowercased()): \(value)\r\n" }
        _ = socket.writeRaw(Array((head + "\r\n").utf8) + response.body.bytes)
        return -1
    }

    /// The method and path (without its query) of a request line at the start of `bytes`, when it is one:
    /// `TRACE /healthz HTTP/1.1`.
    static func requestLine(_ bytes: [UInt8]) -> (method: String, path: String)? {
        let line = bytes.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/1.".utf8)),
              !parts[0].isEmpty, parts[0].count <= 32, parts[0].allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }),
              parts[1].first == UInt8(ascii: "/")
        else { return nil }
        let target = parts[1].prefix { $0 != UInt8(ascii: "?") }
        return (String(decoding: parts[0], as: UTF8.self), String(decoding: target, as: UTF8.self))
    }
}
