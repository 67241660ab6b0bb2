import Foundation
import SnapboardLWS
import SnapboardLWSClient
import SnapboardLock
import SnapboardTesting
import Testing

/// The client transport against a real libwebsockets server on a loopback port: the conformance echo,
/// run in this process on a thread of its own.
@Suite("The libwebsockets client transport, over real sockets", .serialized)
struct WebSocketClientTests {
    /// An echo server on an ephemeral port, serving on its own thread until `stop()`.
    final class Echo: @unchecked Sendable {
        let server = EchoServer(host: "127.0.0.1", port: 0, eventLoop: .poll, maxMessageBytes: 1 << 16, pingSeconds: 30,
                                idleTimeoutSeconds: 60)
        private let thread: Thread

        init() throws {
            let started = DispatchSemaphore(value: 0)
            let failure = Locked<(any Error)?>(nil)
            let server = self.server
            thread = Thread {
                do { try server.start() } catch { failure.withLock { $0 = error } }
                started.signal()
                server.run()
            }
            thread.start()
            started.wait()
            if let error = failure.withLock({ $0 }) { throw error }
        }

        var port: Int { server.port }

        func stop() { server.stop() }
    }

    @Test("Text, binary and fragmented messages make the round trip whole, and the client's own close ends the connection")
    func roundTrip() throws {
        let echo = try Echo()
        defer { echo.stop() }
        let client = try WebSocketClient(url: "ws://127.0.0.1:\(echo.port)/")
        try client.connect()
        client.send("hello")
        client.send([0, 1, 2, 255], binary: true)
        client.send(Array(repeating: 0x61, count: 10_000), fragments: 4)
        #expect(client.next(timeout: 5) == .message(Array("hello".utf8), binary: false))
        #expect(client.next(timeout: 5) == .message([0, 1, 2, 255], binary: true))
        #expect(client.next(timeout: 5) == .message(Array(repeating: 0x61, count: 10_000), binary: false))
        client.close()
        guard case .closed? = client.next(timeout: 5) else {
            Issue.record("the close was not reported")
            return
        }
    }

    @Test("A message over the server's cap is answered with close 1009")
    func tooBig() throws {
        let echo = try Echo()
        defer { echo.stop() }
        let client = try WebSocketClient(url: "ws://127.0.0.1:\(echo.port)/")
        try client.connect()
        client.send(Array(repeating: 0x62, count: (1 << 16) + 1))
        guard case .closed(let code, _)? = client.next(timeout: 5) else {
            Issue.record("no close")
            return
        }
        #expect(code == 1009)
    }

    @Test("An upgrade the server refuses fails connect with an error; a URL that is not ws:// or wss:// is refused at once")
    func refusals() throws {
        let echo = try Echo()
        defer { echo.stop() }
        #expect(throws: WebSocketError.self) { try WebSocketClient(url: "ws://127.0.0.1:\(echo.port)/elsewhere").connect(timeout: 3) }
        #expect(throws: (any Error).self) { try WebSocketClient(url: "http://127.0.0.1:\(echo.port)/") }
    }

    @Test("httpGet reads the status and body of a plain HTTP answer")
    func plainGet() throws {
        let echo = try Echo()
        defer { echo.stop() }
        let (status, _) = try httpGet(port: echo.port, "/nothing-here")
        #expect(status == 404)
    }
}
