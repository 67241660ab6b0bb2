import CLibWebSockets
import SnapboardLock

#if canImport(Glibc)
import Glibc
#endif

/// The listening socket of a sharded server, on a thread of its own. It accepts each connection, waits
/// for its request line without reading it (`MSG_PEEK` leaves the bytes in the kernel), and hands the
/// descriptor to `route` with the path it asks for. The shard that takes it adopts it into its own
/// libwebsockets context, which reads the request as if it had accepted the connection itself. So a
/// connection crosses threads once, at its start, and never per message.
///
/// A connection that sends no request line within the handshake timeout, or closes first, is closed here.
final class Acceptor: @unchecked Sendable {
    /// The port listened on: the real one when port 0 was asked for.
    let port: Int
    private let listener: Int32
    /// A pipe `stop()` writes to, to wake `poll`.
    private let wakeup: (read: Int32, write: Int32)
    private let handshakeSeconds: Double
    private let stopping = Locked(false)

    /// The longest request line looked at: a longer one is handed on as it is, for libwebsockets to refuse.
    static let peekBytes = 4096

    /// Binds and listens on `host:port` (IPv4, as the unsharded server does).
    init(host: String, port: Int, handshakeSeconds: Int) throws {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            throw AcceptorError("cannot resolve \(host) to listen on")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw AcceptorError("cannot open a socket: \(String(cString: strerror(errno)))") }
        Self.setNonBlocking(fd)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let why = errno == EADDRINUSE ? "is already in use (another server is listening there; stop it, or pick another --port)"
                : "cannot be bound: \(String(cString: strerror(errno)))"
            close(fd)
            throw AcceptorError("port \(port) on \(host) \(why)")
        }
        guard listen(fd, SOMAXCONN) == 0 else {
            close(fd)
            throw AcceptorError("cannot listen on \(host):\(port): \(String(cString: strerror(errno)))")
        }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(fd)
            throw AcceptorError("cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends { Self.setNonBlocking(end) }
        wakeup = (ends[0], ends[1])
        self.handshakeSeconds = Double(handshakeSeconds)
    }

    deinit {
        close(listener)
        close(wakeup.read)
        close(wakeup.write)
    }

    /// Ends `run()` soon. Safe from any thread.
    func stop() {
        stopping.withLock { $0 = true }
        var one: UInt8 = 1
        _ = write(wakeup.write, &one, 1)
    }

    /// Accepts until `stop()`. `admit` sees each descriptor first and may refuse it (it then answers and
    /// closes it); `route` gets each admitted one with its request line's path (nil when none could be read).
    func run(admit: (Int32) -> Bool, route: (Int32, String?) -> Void) {
        var waiting: [(fd: Int32, deadline: Double)] = []
        var polled: [pollfd] = []
        while !stopping.withLock({ $0 }) {
            polled.removeAll(keepingCapacity: true)
            polled.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
            polled.append(pollfd(fd: wakeup.read, events: Int16(POLLIN), revents: 0))
            for entry in waiting { polled.append(pollfd(fd: entry.fd, events: Int16(POLLIN), revents: 0)) }
            let now = Self.monotonicSeconds()
            let soonest = waiting.map(\.deadline).min().map { max(0, $0 - now) } ?? 1
            guard poll(&polled, nfds_t(polled.count), Int32(min(1000, soonest * 1000 + 1))) >= 0 || errno == EINTR else { break }
            let after = Self.monotonicSeconds()
            // Newcomers, then those whose request line arrived, closed or timed out.
            var next: [(fd: Int32, deadline: Double)] = []
            for (i, entry) in waiting.enumerated() {
                let events = polled[i + 2].revents
                if events != 0 {
                    switch Self.requestPath(entry.fd) {
                    case .waiting where events & Int16(POLLIN) != 0 && after < entry.deadline:
                        next.append(entry)
                    case .waiting, .closed:
                        Self.drainAndClose(entry.fd)
                    case .path(let path):
                        route(entry.fd, path)
                    }
                } else if after >= entry.deadline {
                    Self.drainAndClose(entry.fd)
                } else {
                    next.append(entry)
                }
            }
            waiting = next
            if polled[0].revents != 0 {
                while case let fd = accept(listener, nil, nil), fd >= 0 {
                    Self.setNonBlocking(fd)
                    if admit(fd) { waiting.append((fd, after + handshakeSeconds)) }
                }
            }
        }
        for entry in waiting { Self.drainAndClose(entry.fd) }
    }

    /// Reads what a peer sent (a part of a request line, only peeked at so far) before closing: closed with
    /// unread bytes, the socket would answer with a reset instead of an orderly close.
    static func drainAndClose(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: peekBytes)
        _ = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        close(fd)
    }

    /// What a peek at an accepted socket found.
    enum Peek: Equatable {
        case waiting
        case closed
        /// The request line's path, without its query; nil when the line is not a request line.
        case path(String?)
    }

    /// Peeks at what `fd` has sent so far: its request line's path once the line is complete (or the peek
    /// buffer is full), without taking the bytes from the kernel.
    static func requestPath(_ fd: Int32) -> Peek {
        var buffer = [UInt8](repeating: 0, count: peekBytes)
        let n = recv(fd, &buffer, buffer.count, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if n == 0 { return .closed }
        if n < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .waiting : .closed }
        let bytes = buffer[..<n]
        guard let end = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return n == buffer.count ? .path(nil) : .waiting }
        return .path(path(inRequestLine: bytes[..<end]))
    }

    /// The raw query of the request line `fd` has sent (peeked again, still unread): `x=1` of
    /// `GET /v1/canvases/a?x=1 HTTP/1.1`; nil when there is none.
    static func requestQuery(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: peekBytes)
        let n = recv(fd, &buffer, buffer.count, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        guard n > 0 else { return nil }
        let bytes = buffer[..<n]
        return query(inRequestLine: bytes[..<(bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex)])
    }

    /// The raw query of `GET /v1/canvases/a?x=1 HTTP/1.1`: `x=1` (nil without a `?`).
    static func query(inRequestLine line: ArraySlice<UInt8>) -> String? {
        let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 2)
        guard parts.count >= 2, let mark = parts[1].firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let query = parts[1][(mark + 1)...].prefix { $0 != UInt8(ascii: "#") && $0 != UInt8(ascii: "\r") }
        return String(decoding: query, as: UTF8.self)
    }

    /// The path of `GET /v1/canvases/a?x=1 HTTP/1.1`: `/v1/canvases/a`.
    static func path(inRequestLine line: ArraySlice<UInt8>) -> String? {
        let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 2)
        guard parts.count >= 2 else { return nil }
        let target = parts[1].prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        return String(decoding: target, as: UTF8.self)
    }

    /// Non-blocking, and closed on exec.
    static func setNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// The acceptor could not listen.
struct AcceptorError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
