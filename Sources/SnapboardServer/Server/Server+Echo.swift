import CLibWebSockets
import SnapboardLWS
import SnapboardProtocol

/// `--conformance-echo`: the peer `make conformance` runs the Autobahn cases against. Only the echo is
/// extra; the frames are parsed, checked, reassembled and capped by the same code as every session's.
extension Server {
    func receiveEcho(_ echo: EchoConnection, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        switch echo.socket.receive(input, len, into: &echo.assembler) {
        case nil:
            return 0
        case .tooLarge?:
            echo.close = (CloseCode.messageTooBig, "message too large")
        case .message(let bytes, let binary)?:
            echo.queue.append((Frame(payload: bytes), binary))
        }
        echo.socket.requestWritable()
        return 0
    }

    /// One message per writable callback, then the close, if one is due.
    func flushEcho(_ echo: EchoConnection) -> Int32 {
        if !echo.queue.isEmpty {
            let (frame, binary) = echo.queue.removeFirst()
            guard echo.socket.write(frame, mode: binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT) else { return -1 }
            if !echo.queue.isEmpty || echo.close != nil { echo.socket.requestWritable() }
            return 0
        }
        if let close = echo.close { return echo.socket.closeWhenFlushed(code: close.code, reason: close.reason) }
        return 0
    }
}
