import CSnapboardEpoll
import Glibc

/// A server's address as `connect` takes it, resolved once per host and port.
struct SocketAddress {
    var family: Int32
    private var storage = sockaddr_storage()
    private var length: socklen_t

    /// The first IPv4 address `host` resolves to, or its first address when it has no IPv4 one (a server
    /// listening on 0.0.0.0 answers `localhost` on 127.0.0.1, not on ::1).
    init(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw RawWebSocketError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var chosen = list
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let entry = next {
            if entry.pointee.ai_family == AF_INET { chosen = entry; break }
            next = entry.pointee.ai_next
        }
        family = chosen.pointee.ai_family
        length = chosen.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: chosen.pointee.ai_addr, count: Int(length))) }
    }

    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }
}
