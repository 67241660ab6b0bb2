import CLibWebSockets
import SnapboardLock
import SnapboardLWS
import SnapboardStore

extension Server {
    /// Runs `work` on the journal's thread, after every write asked for before it, then answers the request
    /// on the service thread with what `answer` makes of the result (503 when storage failed, after `failed`).
    func answerFromStore<T: Sendable>(
        _ socket: LWSSocket, _ work: @escaping @Sendable (CanvasStore) throws -> T,
        answer: @escaping @Sendable (Server, T) -> HTTPResponse, failed: @escaping @Sendable (Server) -> Void = { _ in }
    ) -> Int32 {
        fromStore(socket, work, then: { server, key, value in
            if let socket = server.awaitingStore.removeValue(forKey: key) { server.respond(socket, answer(server, value)) }
        }, failed: failed)
    }

    /// Runs `work` on the journal's thread, after every write asked for before it, then hands its result to
    /// `then` on the service thread, with the key the request waits under in `awaitingStore` (gone if the
    /// client left). When storage fails, `failed` runs and the request is answered 503.
    func fromStore<T: Sendable>(
        _ socket: LWSSocket, _ work: @escaping @Sendable (CanvasStore) throws -> T,
        then: @escaping @Sendable (Server, Int, T) -> Void, failed: @escaping @Sendable (Server) -> Void = { _ in }
    ) -> Int32 {
        sockets[socket.key] = .http(nil)
        awaitingStore[socket.key] = socket
        let (context, key) = (self.context, socket.key)
        let (path, arguments) = (socket.decodedPath ?? "/", socket.decodedArguments)
        journal.read { [unowned self] store in
            let result = Result { try work(store) }
            context.perform { [unowned self] in
                switch result {
                case .success(let value):
                    then(self, key, value)
                case .failure(let moved as OwnedElsewhere):
                    // A shared store's claim (a replace, a delete, a creation) found another owner.
                    failed(self)
                    if let socket = awaitingStore.removeValue(forKey: key) {
                        respond(socket, Self.redirect(to: moved.owner, path: path, arguments: arguments))
                    }
                case .failure(let error):
                    failed(self)
                    logger.error("storage failed answering a request", metadata: ["error": "\(error)"])
                    if let socket = awaitingStore.removeValue(forKey: key) { respond(socket, .storageFailed(error)) }
                }
            }
        }
        return 0
    }

    /// A heavy read (an export, a past state, a page of history): runs `work` on a reader thread with its own
    /// read-only connection (`ReadPool`), after every write asked for before it is committed, so it sees
    /// them without ever holding up a commit. Then answers on the service thread with what `answer` makes of
    /// the result, as `answerFromStore` does. Refused before any work: past the address's or the token's
    /// rate, 429 `rate_limited`; with every reader busy and the queue full, 503 `busy`; both with `Retry-After`.
    func answerFromReader<T: Sendable>(
        _ socket: LWSSocket, _ work: @escaping @Sendable (CanvasStore) throws -> T,
        answer: @escaping @Sendable (Server, T) -> HTTPResponse
    ) -> Int32 {
        guard let group, let pool = group.reads else { return answerFromStore(socket, work, answer: answer) }
        let token = Self.bearer(socket.header(WSI_TOKEN_HTTP_AUTHORIZATION))
            ?? socket.decodedArguments.first { $0.hasPrefix("token=") }.map { String($0.dropFirst(6)) }
        if let refusal = group.readLimits.admit(ip: socket.peerAddress, token: token, now: Acceptor.monotonicSeconds()) {
            countRefusal(refusal.reason)
            return respondNow(socket, .error(429, "rate_limited", refusal.message).retrying(after: refusal.retryAfter))
        }
        guard pool.admit() else {
            countRefusal("reads")
            return respondNow(socket, .error(503, "busy", "every reader is busy and \(pool.queueLimit) reads wait: try again")
                .retrying(after: 1))
        }
        sockets[socket.key] = .http(nil)
        awaitingStore[socket.key] = socket
        // A client that leaves before its turn costs no work: `httpClosed` marks its read abandoned.
        let abandoned = Locked(false)
        abandonedReads[socket.key] = abandoned
        let (context, key) = (self.context, socket.key)
        // The journal's queue orders the read after the writes before it; the pool's thread does the work.
        journal.read { _ in
            pool.run { [unowned self] store in
                guard !abandoned.withLock({ $0 }) else { return }
                let result = Result { try work(store) }
                context.perform { [unowned self] in
                    if abandonedReads[key] === abandoned { abandonedReads[key] = nil }
                    switch result {
                    case .success(let value):
                        if let socket = awaitingStore.removeValue(forKey: key) { respond(socket, answer(self, value)) }
                    case .failure(let error):
                        logger.error("storage failed answering a read", metadata: ["error": "\(error)"])
                        if let socket = awaitingStore.removeValue(forKey: key) { respond(socket, .storageFailed(error)) }
                    }
                }
            }
        }
        return 0
    }
}
