import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP/1.1 GET over a blocking socket to `host:port` (a name such as `localhost`, or an address),
/// for the few requests a client makes besides its WebSocket: the load tool's convergence check and the
/// tests. It reads until the server closes, or, for a `101`, until the headers end.
public func httpGet(
    host: String = "127.0.0.1", port: Int, _ path: String, headers: [String] = [], timeout: Int = 5
) throws -> (status: Int, body: [UInt8]) {
    try httpRequest(host: host, port: port, "GET", path, headers: headers, timeout: timeout)
}

/// An HTTP/1.1 request with any method, and a body when one is given (sent with its `Content-Length`).
public func httpRequest(
    host: String = "127.0.0.1", port: Int, _ method: String, _ path: String, headers: [String] = [], body: [UInt8]? = nil,
    timeout: Int = 5
) throws -> (status: Int, body: [UInt8]) {
    let fd = try connectTCP(host: host, port: port)
    defer { close(fd) }
    var tv = timeval(tv_sec: timeout, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    // A caller's own Host header replaces the default one.
    let hostHeader = headers.contains { $0.lowercased().hasPrefix("host:") } ? [] : ["Host: \(host)"]
    // The server takes JSON bodies only (415 otherwise): one is declared as such unless the caller says.
    let typed = headers.contains { $0.lowercased().hasPrefix("content-type:") }
    let length = body.map { ["Content-Length: \($0.count)"] + (typed ? [] : ["Content-Type: application/json"]) } ?? []
    let head = (["\(method) \(path) HTTP/1.1"] + hostHeader + ["Connection: close"] + length + headers + ["", ""]).joined(separator: "\r\n")
    let request = Array(head.utf8) + (body ?? [])
    var sent = 0
    while sent < request.count {
        let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n > 0 else { break }  // the server may answer (413) and close before taking the whole body
        sent += n
    }
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

/// A blocking TCP connection to `host:port`, trying each address the name resolves to (IPv4 and IPv6).
func connectTCP(host: String, port: Int) throws -> Int32 {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_family = AF_UNSPEC
    var list: UnsafeMutablePointer<addrinfo>?
    let found = getaddrinfo(host, String(port), &hints, &list)
    guard found == 0, let list else { throw WebSocketError("cannot resolve \(host): \(String(cString: gai_strerror(found)))") }
    defer { freeaddrinfo(list) }
    var lastError = "no address"
    var next: UnsafeMutablePointer<addrinfo>? = list
    while let info = next {
        next = info.pointee.ai_next
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard fd >= 0 else { continue }
        if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
        lastError = String(cString: strerror(errno))
        close(fd)
    }
    throw WebSocketError("connect to \(host):\(port): \(lastError)")
}
