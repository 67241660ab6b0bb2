import Foundation
import SnapboardLock

#if canImport(Glibc)
import Glibc
#endif

/// A lingering close for sockets libwebsockets is done with. libwebsockets 4.1 sends its close frame,
/// shuts down writing and closes the descriptor at once; when the peer's data is still unread (a client
/// that keeps sending after it was told to go), the kernel then answers with a reset, and the peer may
/// lose the close frame and its code before reading them. Given a duplicate of such a socket's
/// descriptor (taken before libwebsockets closes its own), the lingerer keeps it open, reads and
/// throws away what still comes, and closes it once the peer has closed its side, after `seconds`, or
/// after `maxBytes`: the close frame and the FIN arrive first, as RFC 6455 §7.1.1 intends.
///
/// Its own thread waits on the sockets with `poll()`; it never touches libwebsockets. At most
/// `capacity` sockets linger at once; past that a socket is closed straight away.
public final class Lingerer: Sendable {
    public let seconds: Double
    public let capacity: Int
    public let maxBytes: Int
    private let state = Locked(State())
    /// A pipe that wakes the thread when a socket is added or the lingerer stops: (read, write).
    private let wake: (read: Int32, write: Int32)

    struct State {
        var sockets: [(fd: Int32, deadline: Double, read: Int)] = []
        var started = false
        var stopping = false
    }

    public init(seconds: Double = 2, capacity: Int = 256, maxBytes: Int = 1 << 20) {
        self.seconds = seconds
        self.capacity = capacity
        self.maxBytes = maxBytes
        var ends: [Int32] = [-1, -1]
        _ = pipe(&ends)
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wake = (ends[0], ends[1])
    }

    deinit {
        for socket in state.withLock({ $0.sockets }) { Glibc.close(socket.fd) }
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    /// How many sockets linger now.
    public var count: Int { state.withLock { $0.sockets.count } }

    /// Takes over a duplicate of `fd` when the peer has sent data nobody read yet, or `always`; returns
    /// whether it did. Call it before the owner closes `fd`.
    @discardableResult
    public func linger(_ fd: Int32, always: Bool = false) -> Bool {
        var unread: Int32 = 0
        guard fd >= 0, always || (ioctl(fd, UInt(FIONREAD), &unread) == 0 && unread > 0) else { return false }
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return false }
        _ = fcntl(copy, F_SETFL, fcntl(copy, F_GETFL) | O_NONBLOCK)
        let start = state.withLock { state -> Bool? in
            guard !state.stopping, state.sockets.count < capacity else { return nil }
            state.sockets.append((copy, Self.now() + seconds, 0))
            defer { state.started = true }
            return !state.started
        }
        guard let start else {
            Glibc.close(copy)
            return false
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "snapboard-linger"
            thread.start()
        } else {
            var one: UInt8 = 1
            _ = write(wake.write, &one, 1)
        }
        return true
    }

    /// Closes every lingering socket and ends the thread.
    public func stop() {
        state.withLock { $0.stopping = true }
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let (sockets, stopping) = state.withLock { ($0.sockets, $0.stopping) }
            if stopping {
                state.withLock { state in
                    for socket in state.sockets { Glibc.close(socket.fd) }
                    state.sockets.removeAll()
                }
                return
            }
            var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            fds += sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let now = Self.now()
            let nearest = sockets.map(\.deadline).min().map { max(0, $0 - now) } ?? 3600
            _ = poll(&fds, nfds_t(fds.count), Int32(min(nearest * 1000 + 1, 3_600_000)))
            if fds[0].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                _ = read(wake.read, &drained, drained.count)
            }
            var finished: Set<Int32> = []
            var bytesRead: [Int32: Int] = [:]
            let after = Self.now()
            for (i, socket) in sockets.enumerated() {
                if after >= socket.deadline {
                    finished.insert(socket.fd)
                    continue
                }
                guard fds[i + 1].revents != 0 else { continue }
                var total = 0
                while true {
                    let n = recv(socket.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if n > 0 {
                        total += n
                        if socket.read + total >= maxBytes { finished.insert(socket.fd); break }
                        continue
                    }
                    // EOF (the peer closed its side) or an error: done. EAGAIN: wait for more.
                    if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { finished.insert(socket.fd) }
                    break
                }
                bytesRead[socket.fd] = total
            }
            state.withLock { state in
                state.sockets = state.sockets.compactMap { socket in
                    if finished.contains(socket.fd) {
                        Glibc.close(socket.fd)
                        return nil
                    }
                    return (socket.fd, socket.deadline, socket.read + (bytesRead[socket.fd] ?? 0))
                }
            }
        }
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
