import CSnapboardEpoll
import Foundation
import Glibc

/// Connecting, reading, writing and closing. Loop thread only.
extension RawWebSocketLoop {
    /// Starts connecting to `ws://host:port/path`; the delegate hears `opened` or `failed`.
    @discardableResult
    public func connect(host: String, port: Int, path: String, tag: Int = 0) -> RawWebSocketConnection {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = slots.count
            slots.append(nil)
            generations.append(0)
        }
        var nonce: [UInt8] = []
        for _ in 0..<4 { withUnsafeBytes(of: masks.next()) { nonce.append(contentsOf: $0) } }
        let connection = RawWebSocketConnection(
            tag: tag, slot: slot, generation: generations[slot], handshake: UpgradeHandshake(host: host, port: port, path: path, nonce: nonce),
            maxMessageBytes: maxMessageBytes, bufferBytes: bufferBytes)
        slots[slot] = connection
        do {
            let address = try resolve(host: host, port: port)
            let fd = socket(address.family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw RawWebSocketError("socket: \(Self.lastError())") }
            connection.fd = fd
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let started = address.withSockaddr { Glibc.connect(fd, $0, $1) }
            guard started == 0 || errno == EINPROGRESS else { throw RawWebSocketError("connect to \(host):\(port): \(Self.lastError())") }
            guard watch(connection, writable: true, add: true) else { throw RawWebSocketError("epoll_ctl: \(Self.lastError())") }
        } catch {
            end(connection, reason: "\(error)")
        }
        return connection
    }

    /// Queues a message, text unless `binary`. Dropped unless the connection is open.
    public func send(_ connection: RawWebSocketConnection, _ bytes: [UInt8], binary: Bool = false) {
        guard connection.isOpen else { return }
        bytes.withUnsafeBytes { queue(connection, opcode: binary ? ClientFrame.binary : ClientFrame.text, payload: $0) }
        if !connection.watchesWritable { flush(connection) }
    }

    /// Closes with `code` once what is queued is written, and the socket once the server answers; code 0
    /// drops the socket at once, without a close frame.
    public func close(_ connection: RawWebSocketConnection, code: UInt16 = 1000, reason: String = "") {
        guard connection.isOpen, code != 0 else {
            if case .closed = connection.state { return }
            return end(connection, reason: "closed by the client")
        }
        queueClose(connection, code: code, reason: reason)
        connection.state = .closing
        if !connection.watchesWritable { flush(connection) }
    }

    func handle(_ connection: RawWebSocketConnection, events: UInt32) {
        if case .connecting(let handshake) = connection.state {
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(connection.fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 { return end(connection, reason: "connect: \(String(cString: strerror(error)))") }
            guard events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 else { return }
            connection.state = .upgrading(handshake)
            connection.outbox.append(contentsOf: handshake.request)
            return flush(connection)
        }
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { readable(connection) }
        if events & EPOLLOUT.rawValue != 0, connection.fd >= 0 { flush(connection) }
    }

    /// Reads what the socket holds, in blocks as large as the buffer's free space, and consumes it.
    private func readable(_ connection: RawWebSocketConnection) {
        while connection.fd >= 0 {
            if connection.inputEnd == connection.input.count {
                // Full only while an upgrade's head is incomplete: frames make room for themselves in `consume`.
                let unread = connection.inputEnd - connection.inputStart
                connection.makeRoom(for: connection.inputStart > 0 ? unread : unread + bufferBytes)
            }
            let room = connection.input.count - connection.inputEnd
            let n = Glibc.read(connection.fd, connection.input.baseAddress! + connection.inputEnd, room)
            if n > 0 {
                connection.inputEnd += n
                consume(connection)
                // A short read emptied the socket: epoll lists it again when more arrives.
                if n < room { return }
            } else if n == 0 {
                return end(connection, reason: connection.wasOpened ? "the server closed the connection" : "the server closed the connection before the upgrade")
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN {
                return
            } else {
                return end(connection, reason: "read: \(Self.lastError())")
            }
        }
    }

    /// Takes the upgrade's answer, then every whole frame, off the front of the read buffer.
    private func consume(_ connection: RawWebSocketConnection) {
        if case .upgrading(let handshake) = connection.state {
            let head = UnsafeRawBufferPointer(start: connection.input.baseAddress! + connection.inputStart,
                                              count: connection.inputEnd - connection.inputStart)
            switch handshake.check(head) {
            case .incomplete: return
            case .refused(let why): return end(connection, reason: why)
            case .upgraded(let headBytes):
                connection.inputStart += headBytes
                connection.state = .open
                connection.wasOpened = true
                delegate?.opened(connection)
            }
        }
        while connection.inputStart < connection.inputEnd, connection.fd >= 0, connection.peerClose == nil {
            let bytes = UnsafeRawBufferPointer(start: connection.input.baseAddress! + connection.inputStart,
                                               count: connection.inputEnd - connection.inputStart)
            switch connection.reader.next(bytes) {
            case .frame(let event, let consumed):
                connection.inputStart += consumed
                if let event { deliver(event, on: connection) }
            case .incomplete(let needed):
                if needed > connection.input.count - connection.inputStart { connection.makeRoom(for: needed) }
                return
            case .violation(let code, let reason):
                connection.failure = reason
                queueClose(connection, code: code, reason: reason)
                flush(connection)
                return end(connection, reason: reason)
            }
        }
        if connection.inputStart == connection.inputEnd {
            connection.inputStart = 0
            connection.inputEnd = 0
        }
    }

    private func deliver(_ event: ServerFrameReader.Event, on connection: RawWebSocketConnection) {
        switch event {
        case .message(let bytes, let binary):
            delegate?.received(connection, lent: bytes, binary: binary)
        case .joined(let bytes, let binary):
            delegate?.received(connection, bytes, binary: binary)
        case .ping(let payload):
            queue(connection, opcode: ClientFrame.pong, payload: payload)
            if !connection.watchesWritable { flush(connection) }
        case .pong:
            break
        case .close(let code, let reason):
            connection.peerClose = (code, reason)
            // Answered with the same code unless we closed first; the socket closes once that is written.
            if connection.isOpen { queueClose(connection, code: code, reason: "") }
            connection.state = .closing
            connection.closeWhenWritten = true
            if !connection.watchesWritable { flush(connection) }
        }
    }

    func queue(_ connection: RawWebSocketConnection, opcode: UInt8, payload: UnsafeRawBufferPointer) {
        if connection.outboxStart == connection.outbox.count {
            connection.outbox.removeAll(keepingCapacity: true)
            connection.outboxStart = 0
        }
        ClientFrame.append(opcode: opcode, payload: payload, mask: masks.next(), to: &connection.outbox)
    }

    private func queueClose(_ connection: RawWebSocketConnection, code: UInt16?, reason: String) {
        var payload: [UInt8] = []
        if let code { payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + reason.utf8.prefix(123) }
        payload.withUnsafeBytes { queue(connection, opcode: ClientFrame.close, payload: $0) }
    }

    /// Writes as much of the outbox as the socket takes, and watches for writability while some is left.
    func flush(_ connection: RawWebSocketConnection) {
        while connection.hasOutput {
            let n = connection.outbox.withUnsafeBytes {
                Glibc.send(connection.fd, $0.baseAddress! + connection.outboxStart, $0.count - connection.outboxStart, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                connection.outboxStart += n
            } else if n < 0, errno == EINTR {
                continue
            } else if n < 0, errno == EAGAIN {
                if !connection.watchesWritable { watch(connection, writable: true) }
                return
            } else {
                return end(connection, reason: "send: \(Self.lastError())")
            }
        }
        connection.outbox.removeAll(keepingCapacity: true)
        connection.outboxStart = 0
        if connection.watchesWritable { watch(connection, writable: false) }
        if connection.closeWhenWritten { end(connection, reason: "closed") }
    }

    /// Closes the socket and frees the slot; the delegate hears of it once the current callback returns.
    func end(_ connection: RawWebSocketConnection, reason: String) {
        if case .closed = connection.state { return }
        connection.state = .closed
        connection.failure = connection.failure ?? reason
        if connection.fd >= 0 {
            Glibc.close(connection.fd)
            connection.fd = -1
        }
        slots[connection.slot] = nil
        generations[connection.slot] &+= 1
        freeSlots.append(connection.slot)
        ended.append(connection)
    }

    private func resolve(host: String, port: Int) throws -> SocketAddress {
        let key = "\(host):\(port)"
        if let known = addresses[key] { return known }
        let address = try SocketAddress(host: host, port: port)
        addresses[key] = address
        return address
    }
}
