import Foundation
import SnapboardLWSClient

#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0 and read back), for a program that
/// cannot be told to pick one (HAProxy, PostgreSQL, etcd, Patroni) or whose flags name its port.
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ServerStartError(output: "socket: errno \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw ServerStartError(output: "no free loopback port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A TCP socket connected to 127.0.0.1:`port`; a `receiveBuffer` size is set before connecting, and
/// with `receiveTimeout` a blocking `recv` gives up after that many seconds.
public func connectLoopback(port: Int, receiveBuffer: Int32? = nil, receiveTimeout: Int? = nil) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ServerStartError(output: "socket") }
    if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
    if let seconds = receiveTimeout {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard ok == 0 else {
        Glibc.close(fd)
        throw ServerStartError(output: "connect")
    }
    return fd
}

/// Writes a WebSocket upgrade request for `path` (with its query) on a raw socket.
public func sendUpgrade(_ fd: Int32, path: String) {
    let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
}

/// A plain HTTP/1.1 request over a real socket, so tests need no proxy-aware HTTP stack.
public func httpGet(port: Int, _ path: String, headers: [String] = []) throws -> (status: Int, body: String) {
    let (status, body) = try SnapboardLWSClient.httpGet(port: port, path, headers: headers)
    return (status, String(decoding: body, as: UTF8.self))
}

/// Any HTTP request, with a body when one is given; the body of the answer as text.
public func http(port: Int, _ method: String, _ path: String, body: String? = nil, headers: [String] = []) throws -> (status: Int, body: String) {
    let (status, answer) = try SnapboardLWSClient.httpRequest(port: port, method, path, headers: headers, body: body.map { Array($0.utf8) })
    return (status, String(decoding: answer, as: UTF8.self))
}

/// The WebSocket frames in `bytes` (an HTTP response's head, then unmasked server frames), as far as
/// they are complete.
public func serverFrames(in bytes: [UInt8]) -> [(opcode: UInt8, fin: Bool, payload: ArraySlice<UInt8>)] {
    guard let head = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return [] }
    var frames: [(opcode: UInt8, fin: Bool, payload: ArraySlice<UInt8>)] = []
    var i = head.upperBound
    while i + 2 <= bytes.count {
        var length = Int(bytes[i + 1] & 0x7F), start = i + 2
        if length == 126, start + 2 <= bytes.count { length = Int(bytes[start]) << 8 | Int(bytes[start + 1]); start += 2 }
        else if length == 127, start + 8 <= bytes.count { length = bytes[start..<start + 8].reduce(0) { $0 << 8 | Int($1) }; start += 8 }
        guard start + length <= bytes.count else { break }
        frames.append((bytes[i] & 0x0F, bytes[i] & 0x80 != 0, bytes[start..<start + length]))
        i = start + length
    }
    return frames
}
