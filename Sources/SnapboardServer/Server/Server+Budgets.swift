import SnapboardLWS
import SnapboardProtocol
import SnapboardRoom

/// What a WebSocket can make the server hold, bounded in size and time: a close that waits for a peer
/// that does not read, and messages left unfinished.
extension Server {
    /// How long a close the server asked for may wait for the peer to take what is queued before it: a
    /// peer that does not read is then dropped without its close frame.
    static let closeGraceSeconds = 5

    /// The most messages a session may send before its canvas has loaded (its bytes count toward its
    /// send budget, `--max-queued-bytes`).
    static let maxBacklogMessages = 1_000

    /// Close codes of connections closed for what they made the server hold (their memory is handed back).
    static let shedCodes: Set<UInt16> = [CloseCode.policyViolation, CloseCode.messageTooBig, CloseCode.resume]

    /// Bounds how long a close of the connection may wait for its peer.
    func bound(_ conn: Connection) {
        conn.outbox.onClose = { [unowned self, key = conn.socket.key, id = conn.id] in
            openConnection(key, id)?.socket.dropAfter(seconds: Self.closeGraceSeconds)
        }
    }

    /// The bytes unfinished messages may hold on this service thread: its share of the server's budget.
    var unfinishedBudget: Int { options.limits.unfinishedMessageBytes / (shard?.count ?? 1) }

    /// Feeds what a receive callback brought to the connection's assembler, within the budget of unfinished
    /// messages: a fragment that would take the bytes held past it is refused (`too_large`, then close
    /// 1009) and its message dropped. Nil while the message is unfinished.
    func assemble(_ conn: Connection, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Inbound? {
        let held = conn.assembler.heldBytes
        defer { noteUnfinished(conn, held: held) }
        if !conn.socket.isFinalFragment, !conn.assembler.isSkipping, unfinishedBytes + len > unfinishedBudget {
            conn.assembler.discard()
            countRefusal("unfinished")
            return .invalid(ProtocolError(.tooLarge, "the server holds as many unfinished messages as it may: send it again later"))
        }
        switch conn.socket.receive(input, len, into: &conn.assembler) {
        case nil:
            return nil
        case .tooLarge?:
            return .invalid(ProtocolError(.tooLarge, "messages are limited to \(options.maxMessageBytes) bytes"))
        case .message(_, binary: true)?:
            return .invalid(ProtocolError(.binaryFrame, "the protocol is JSON in text frames"))
        case .message(let bytes, binary: false)?:
            return .text(bytes)
        }
    }

    /// Keeps a message for when the canvas has loaded, within the session's send budget: a client that sends
    /// more than that before its canvas loads is closed with 1008.
    func hold(_ message: Inbound, for conn: Connection) {
        if case .text(let bytes) = message { conn.backlogBytes += bytes.count }
        conn.backlog.append(message)
        guard conn.backlogBytes > options.room.maxQueuedBytes || conn.backlog.count > Self.maxBacklogMessages else { return }
        conn.backlog.removeAll()
        conn.backlogBytes = 0
        conn.outbox.requestClose(code: CloseCode.policyViolation, reason: "too many messages before the canvas loaded")
    }

    /// Books the change in what `conn` holds of an unfinished message (it held `held` bytes before).
    private func noteUnfinished(_ conn: Connection, held: Int) {
        unfinishedBytes += conn.assembler.heldBytes - held
        if conn.assembler.heldBytes > 0, conn.unfinishedSince == nil {
            conn.unfinishedSince = now
            unfinishedConnections[conn.id] = conn
        } else if conn.assembler.heldBytes == 0, conn.unfinishedSince != nil {
            conn.unfinishedSince = nil
            unfinishedConnections[conn.id] = nil
        }
    }

    /// From the tick: a message left unfinished for longer than the idle timeout closes its connection with
    /// 1008, and its bytes go.
    func closeStaleUnfinished() {
        let now = self.now
        for conn in unfinishedConnections.values {
            guard let since = conn.unfinishedSince, now - since > Double(options.idleTimeoutSeconds) else { continue }
            let held = conn.assembler.heldBytes
            conn.assembler.discard()
            noteUnfinished(conn, held: held)
            conn.outbox.requestClose(code: CloseCode.policyViolation, reason: "a message was left unfinished for longer than the idle timeout")
        }
    }

    /// From `CLOSED`: what the connection held goes, and one shed for what it made the server hold counts
    /// toward handing memory back.
    func release(_ conn: Connection) {
        let held = conn.assembler.heldBytes
        conn.assembler.discard()
        noteUnfinished(conn, held: held)
        if let code = conn.outbox.close?.code, Self.shedCodes.contains(code) { shedConnections += 1 }
    }
}
