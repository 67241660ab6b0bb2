import CSnapboardEpoll
import Foundation
import Glibc
import SnapboardLock

/// Many plain `ws://` client connections on one epoll loop and one thread, with the shape of
/// `SnapboardLWSClient.WebSocketLoop`: the load tool can run on either.
///
/// Nonblocking sockets, edge-triggered epoll: a socket is read until a read comes back short, so nothing
/// waits for an edge that has passed, and a socket read dry is not listed again. Frames are read in blocks
/// into a buffer per connection, and a message that arrives in one frame is lent to the delegate where it
/// lies. Writes go straight to the
/// socket; what the socket does not take waits in the connection's outbox, and epoll watches for
/// writability only while an outbox holds bytes. The timer is `epoll_pwait2`'s timeout, in microseconds, and
/// is also looked at every `timerCheckEvery` events of a long batch, so that a load tool sends on time;
/// before Linux 5.11 it is `epoll_wait`'s, in whole milliseconds rounded up.
///
/// Only the loop's thread touches connections. The delegate runs there and may call `connect`, `send`,
/// `close` and `schedule` directly; other threads hand work over with `perform`.
public final class RawWebSocketLoop: @unchecked Sendable {
    public weak var delegate: RawWebSocketLoopDelegate?
    /// The largest message a connection accepts; a larger one closes it with 1009.
    public let maxMessageBytes: Int
    /// The read buffer each connection starts with; a larger frame grows it.
    public let bufferBytes: Int
    private var epoll: Int32 = -1
    private var wake: Int32 = -1
    private var thread: Thread?
    /// Work handed over by other threads, and whether `stop` was called.
    private let handovers = Locked<(work: [@Sendable (RawWebSocketLoop) -> Void], stopping: Bool)>(([], false))

    // Loop thread only.
    /// Connections by slot; epoll's data for a socket is its slot and the slot's generation.
    var slots: [RawWebSocketConnection?] = []
    var generations: [UInt32] = []
    var freeSlots: [Int] = []
    /// Connections closed since the delegate last heard, told once the current callback has returned.
    var ended: [RawWebSocketConnection] = []
    var masks: MaskGenerator
    var addresses: [String: SocketAddress] = [:]
    private var timerDue: Int64?

    /// The data that marks the wake-up eventfd's events rather than a connection's.
    private static let wakeToken = UInt64.max

    /// A loop not yet started; `start` creates its epoll set and thread.
    public init(delegate: RawWebSocketLoopDelegate? = nil, maxMessageBytes: Int = 64 << 20, bufferBytes: Int = 16 << 10) {
        self.delegate = delegate
        self.maxMessageBytes = maxMessageBytes
        self.bufferBytes = bufferBytes
        masks = MaskGenerator(seed: UInt64(bitPattern: Self.now()) ^ UInt64(getpid()) << 32)
    }

    deinit {
        if wake >= 0 { Glibc.close(wake) }
        if epoll >= 0 { Glibc.close(epoll) }
    }

    /// Creates the epoll set and starts the loop's thread. Throws when the kernel refuses either.
    public func start(name: String = "snapboard-raw-ws") throws {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw RawWebSocketError("epoll_create1: \(Self.lastError())") }
        wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wake >= 0 else { throw RawWebSocketError("eventfd: \(Self.lastError())") }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: Self.wakeToken))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event) == 0 else { throw RawWebSocketError("epoll_ctl: \(Self.lastError())") }
        // The first timerFired, as the loop starts.
        timerDue = Self.now()
        let thread = Thread { [self] in
            run()
            for case let connection? in slots { end(connection, reason: "the loop stopped") }
            slots.removeAll()
            ended.removeAll()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    /// Runs `work` on the loop's thread, soon. Safe from any thread; dropped once the loop has stopped.
    public func perform(_ work: @escaping @Sendable (RawWebSocketLoop) -> Void) {
        handovers.withLock { $0.work.append(work) }
        signal()
    }

    /// Stops the loop after the current callback, dropping every connection without a close handshake.
    public func stop() {
        handovers.withLock { $0.stopping = true }
        signal()
    }

    /// Blocks until the loop's thread has stopped.
    public func wait() {
        while thread?.isFinished == false { usleep(1000) }
    }

    /// Fires the delegate's `timerFired` after `microseconds`, replacing any earlier schedule. The loop
    /// fires it once as it starts; reschedule from `timerFired`. Loop thread only.
    public func schedule(after microseconds: Int) {
        timerDue = Self.now() + Int64(max(0, microseconds))
    }

    private func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(wake, &one, 8)
    }

    private func run() {
        let capacity: Int32 = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(capacity))
        defer { events.deallocate() }
        while true {
            let n = waitForEvents(events, capacity, micros: timerDue.map { max(0, $0 - Self.now()) } ?? -1)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            for k in 0..<Int(n) {
                let data = events[k].data.u64, flags = events[k].events
                if data == Self.wakeToken {
                    guard runHandovers() else { return }
                    continue
                }
                let slot = Int(data & 0xFFFF_FFFF)
                guard slot < slots.count, let connection = slots[slot], connection.generation == UInt32(data >> 32) else { continue }
                handle(connection, events: flags)
                reportEnded()
                if (k + 1) % Self.timerCheckEvery == 0 { fireTimerIfDue() }
            }
            fireTimerIfDue()
        }
    }

    /// How many events of one batch the loop handles between two looks at the timer.
    static let timerCheckEvery = 32
    /// False once `epoll_pwait2` turned out missing (Linux before 5.11): the timeout is then in milliseconds.
    private var preciseTimeouts = true

    /// `epoll_pwait2` for up to `micros` microseconds (-1: no limit), or `epoll_wait` rounded up to whole
    /// milliseconds where the kernel lacks it.
    private func waitForEvents(_ events: UnsafeMutablePointer<epoll_event>, _ capacity: Int32, micros: Int64) -> Int32 {
        if preciseTimeouts {
            var timeout = timespec(tv_sec: Int(micros / 1_000_000), tv_nsec: Int(micros % 1_000_000) * 1000)
            let n = micros < 0 ? epoll_pwait2(epoll, events, capacity, nil, nil) : epoll_pwait2(epoll, events, capacity, &timeout, nil)
            if n >= 0 || errno != ENOSYS { return n }
            preciseTimeouts = false
        }
        return epoll_wait(epoll, events, capacity, micros < 0 ? -1 : Int32(min((micros + 999) / 1000, 60_000)))
    }

    private func fireTimerIfDue() {
        guard let due = timerDue, Self.now() >= due else { return }
        timerDue = nil
        delegate?.timerFired()
        reportEnded()
    }

    /// Runs what other threads handed over; false once the loop is to stop.
    private func runHandovers() -> Bool {
        var count: UInt64 = 0
        _ = Glibc.read(wake, &count, 8)
        let (work, stopping) = handovers.withLock { state in
            defer { state.work.removeAll() }
            return (state.work, state.stopping)
        }
        if stopping { return false }
        for item in work {
            item(self)
            reportEnded()
        }
        return true
    }

    /// Tells the delegate about the connections that ended, each once.
    func reportEnded() {
        while !ended.isEmpty {
            let list = ended
            ended.removeAll(keepingCapacity: true)
            for connection in list {
                if connection.wasOpened {
                    let reason = connection.peerClose?.reason ?? connection.failure ?? ""
                    delegate?.closed(connection, code: connection.peerClose?.code, reason: reason)
                } else {
                    delegate?.failed(connection, connection.failure ?? "closed before the upgrade")
                }
            }
        }
    }

    /// CLOCK_MONOTONIC in microseconds, the load tool's clock.
    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    static func lastError() -> String { String(cString: strerror(errno)) }

    /// Changes what epoll watches `connection`'s socket for: reading always, writing when `writable`.
    @discardableResult
    func watch(_ connection: RawWebSocketConnection, writable: Bool, add: Bool = false) -> Bool {
        var event = epoll_event(
            events: (writable ? EPOLLIN.rawValue | EPOLLOUT.rawValue : EPOLLIN.rawValue) | EPOLLET.rawValue,
            data: epoll_data_t(u64: UInt64(connection.slot) | UInt64(connection.generation) << 32))
        connection.watchesWritable = writable
        return epoll_ctl(epoll, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, connection.fd, &event) == 0
    }
}

/// Why the loop could not start, or a connection could not be made.
public struct RawWebSocketError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, with the system's reason when it gave one.
    public var description: String
    init(_ description: String) { self.description = description }
}
