import CLibWebSockets
import CSnapboardLWS
import Dispatch
import Foundation
import SnapboardLWS
import SnapboardLock

/// An HTTP GET over TLS through libwebsockets' client, the server's certificate verified against `caFile`
/// (a PEM file) or the system's trust store, and its name against `host` unless `verifyName` is false:
/// `snapboard-server health` against a server that serves only `https://`. Blocks at most `timeout` s.
public func httpsGet(host: String, port: Int, _ path: String, caFile: String? = nil, verifyName: Bool = true,
                     timeout: Double = 5) throws -> (status: Int, body: [UInt8]) {
    let request = HTTPSRequest(caFile: caFile)
    return try request.run(host: host, port: port, path: path, verifyName: verifyName, timeout: timeout)
}

/// One request on a client context of its own, whose service thread runs until it is answered.
private final class HTTPSRequest: LWSHandler, @unchecked Sendable {
    private let context: LWSContext
    private let done = DispatchSemaphore(value: 0)
    /// Service thread only, until `done` is signalled.
    private var status = 0
    private var body: [UInt8] = []
    private var failure: String?
    private var finished = false

    init(caFile: String?) {
        context = LWSContext(role: .client, eventLoop: .poll)
        context.tls = .client(caFile: caFile)
    }

    func run(host: String, port: Int, path: String, verifyName: Bool, timeout: Double) throws -> (status: Int, body: [UInt8]) {
        context.handler = self
        let opened = DispatchSemaphore(value: 0)
        let startFailure = Locked<String?>(nil)
        let thread = Thread { [self] in
            let me = Unmanaged.passUnretained(self).toOpaque()
            do {
                try context.open(logLevel: Int32(LLL_ERR))
            } catch {
                startFailure.withLock { $0 = "\(error)" }
                opened.signal()
                return
            }
            opened.signal()
            if context.connect(host: host, port: port, path: path, secure: true, verifyName: verifyName, method: "GET", opaque: me) == nil, !finished {
                finish(failure: "cannot start connecting to \(host):\(port)")
            }
            context.run()
        }
        thread.start()
        opened.wait()
        if let why = startFailure.withLock({ $0 }) { throw WebSocketError(why) }
        let answered = done.wait(timeout: .now() + timeout) == .success
        context.stop()
        while !thread.isFinished { usleep(1000) }
        guard answered else { throw WebSocketError("no answer from \(host):\(port) within \(timeout) s") }
        if let failure { throw WebSocketError(failure) }
        return (status, body)
    }

    private func finish(failure why: String? = nil) {
        guard !finished else { return }
        finished = true
        failure = why
        done.signal()
    }

    func callback(_ socket: LWSSocket, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
            status = Int(lws_http_client_http_response(socket.wsi))
        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP:
            var buffer = [CChar](repeating: 0, count: Int(snapboard_lws_pre) + 4096)
            return buffer.withUnsafeMutableBufferPointer { snapboard_http_client_read(socket.wsi, $0.baseAddress, 4096) } == 0 ? 0 : -1
        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
            if let input { body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len)) }
        case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
            finish()
            return -1
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            finish(failure: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed")
        case LWS_CALLBACK_CLOSED_CLIENT_HTTP:
            // Closed before the whole answer came: what came is all there is.
            if status == 0 { finish(failure: "closed before an answer") } else { finish() }
        default:
            break
        }
        return 0
    }

    func timerFired() {}
}
