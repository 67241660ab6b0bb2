import SnapboardLWS

/// Writing sessions' frames: after each tick and handover, and in writable callbacks.
extension Server {
    /// Runs `body` (the tick, or storage's handover) and then writes the next frame of every outbox that is
    /// ready: those it filled, and those filled since the last tick or handover (by a client's op, a join or
    /// a leave). A frame then costs its send, not also two changes of the socket's epoll interest and a
    /// writable callback, and what a commit or a lease change sends between ticks leaves in the same frame
    /// as the tick's live delta. libwebsockets 4.1 sends what the socket takes and keeps the rest itself,
    /// asking for the writable callback that finishes it; a connection with part of a frame still there, a
    /// message in parts or a close waits for that callback as before.
    ///
    /// Every `handoverEvery` frames it looks for storage's handover and takes it at once, and the acks it
    /// queues are written next: a tick that writes a frame to each of a thousand clients does not hold the
    /// acks of commits made durable meanwhile until its last frame. An outbox that becomes ready otherwise
    /// while these writes run (a peer's leave, after a failed write) is written once they end, after the
    /// service thread has woken itself. Returns the seconds the writes took.
    @discardableResult
    func writingAtOnce(_ body: () -> Void) -> Double {
        body()
        guard !readyToWrite.isEmpty else { return 0 }
        let started = now
        // The list being written is `writing`; what becomes ready meanwhile goes to the emptied `readyToWrite`.
        swap(&readyToWrite, &writing)
        var next = 0
        while next < writing.count {
            write(writing[next].key, writing[next].id, now: started)
            next += 1
            if next % Self.handoverEvery == 0, storageEvents.hasEvents {
                takeStorageEvents()
                writing.insert(contentsOf: readyToWrite, at: next)
                readyToWrite.removeAll(keepingCapacity: true)
            }
        }
        writing.removeAll(keepingCapacity: true)
        if !readyToWrite.isEmpty { context.wake() }
        return now - started
    }

    /// How many frames the writes after a tick or handover send between two looks at storage's handover.
    static let handoverEvery = 16

    /// Hands what the journal's thread reported to the rooms: acks, loads, failures.
    func takeStorageEvents() {
        let now = self.now
        for event in storageEvents.take() { registry.handle(event, now: now) }
    }

    private func write(_ key: Int, _ id: Int, now: Double) {
        guard let conn = openConnection(key, id) else { return }
        if conn.fragments != nil || conn.outbox.close != nil || conn.socket.hasPartialWrite {
            conn.socket.requestWritable()
        } else if writeNext(conn, now: now) < 0 {
            conn.socket.drop()
        }
    }

    /// The outbox of connection `id` on socket `key` went from empty to not: it is written when the next tick
    /// or handover ends (`writingAtOnce`).
    func outboxReady(_ key: Int, _ id: Int) {
        readyToWrite.append((key, id))
    }

    /// Connection `id`, if it is still open on socket `key`.
    func openConnection(_ key: Int, _ id: Int) -> Connection? {
        guard case .websocket(let conn)? = sockets[key], conn.id == id else { return nil }
        return conn
    }

    /// `SERVER_WRITEABLE`: one frame per writable callback: everything pending, as one message or a batch,
    /// or the next fragment of a message in parts. Then the close, if asked.
    func flush(_ socket: LWSSocket) -> Int32 {
        guard case .websocket(let conn)? = sockets[socket.key] else { return -1 }
        return writeNext(conn, now: now)
    }

    /// Writes `conn`'s next frame and asks for a writable callback if more waits. -1 when the connection
    /// must close.
    private func writeNext(_ conn: Connection, now: Double) -> Int32 {
        if conn.fragments == nil {
            switch conn.outbox.take(now: now) {
            case .whole(let frame)?:
                guard conn.socket.write(frame) else { return -1 }
                metrics.bytesSent += frame.count
                metrics.framesSent += 1
                if conn.outbox.hasPending { conn.socket.requestWritable() }
                return 0
            case .parts(let parts)?:
                conn.fragments = FragmentWriter(parts)
                metrics.bytesSent += parts.reduce(0) { $0 + $1.count }
            case nil:
                if let close = conn.outbox.close { return conn.socket.closeWhenFlushed(code: close.code, reason: close.reason) }
                return 0
            }
        } else {
            conn.outbox.drained(now: now)
        }
        guard conn.fragments!.writeNext(to: conn.socket) else { return -1 }
        metrics.framesSent += 1
        if conn.fragments!.isDone { conn.fragments = nil }
        if conn.fragments != nil || conn.outbox.hasPending { conn.socket.requestWritable() }
        return 0
    }
}
