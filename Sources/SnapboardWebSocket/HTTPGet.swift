import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP/1.1 GET over a blocking socket to `host:port` (an IPv4 address), for the few requests a
/// client makes besides its WebSocket: the load tool's convergence check and the tests. It reads until
/// the server closes, or, for a `101`, until the headers end.
public func httpGet(
    host: String = "127.0.0.1", port: Int, _ path: String, headers: [String] = [], timeout: Int = 5
) throws -> (status: Int, body: [UInt8]) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw WebSocketError("socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var tv = timeval(tv_sec: timeout, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr(host)
    let ok = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard ok == 0 else { throw WebSocketError("connect to \(host):\(port): \(String(cString: strerror(errno)))") }
    // A caller's own Host header replaces the default one.
    let hostHeader = headers.contains { $0.lowercased().hasPrefix("host:") } ? [] : ["Host: \(host)"]
    let request = (["GET \(path) HTTP/1.1"] + hostHeader + ["Connection: close"] + headers + ["", ""]).joined(separator: "\r\n")
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let headerEnd: [UInt8] = Array("\r\n\r\n".utf8)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        response += buffer[0..<n]
        // A 101 keeps the socket open for WebSocket frames: the headers are all there is to read.
        if response.starts(with: Array("HTTP/1.1 101".utf8)), response.firstRange(of: headerEnd) != nil { break }
    }
    let statusLine = response.prefix { $0 != UInt8(ascii: "\r") }
    let status = Int(String(decoding: statusLine, as: UTF8.self).split(separator: " ").dropFirst().first ?? "") ?? 0
    let body = response.firstRange(of: headerEnd).map { Array(response[$0.upperBound...]) } ?? []
    return (status, body)
}
