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
        journal.read { [unowned self] store in
            let result = Result { try work(store) }
            context.perform { [unowned self] in
                switch result {
                case .success(let value):
                    then(self, key, value)
                case .failure(let error):
                    failed(self)
                    logger.error("storage failed answering a request", metadata: ["error": "\(error)"])
                    if let socket = awaitingStore.removeValue(forKey: key) { respond(socket, .storageFailed(error)) }
                }
            }
        }
        return 0
    }
}
