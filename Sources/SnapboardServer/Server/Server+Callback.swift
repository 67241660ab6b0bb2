import CLibWebSockets
import SnapboardLWS

/// The libwebsockets callback: a thin switch that hands each event to the file of its concern.
extension Server: LWSHandler {
    public func callback(_ socket: LWSSocket, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        switch reason {
        // Admission/
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            // libwebsockets passes the accepted descriptor as the input pointer.
            return refuseIfOutOfDescriptors(Int32(truncatingIfNeeded: Int(bitPattern: input))) ? 1 : 0

        // HTTP/
        case LWS_CALLBACK_HTTP: return httpRequest(socket, input)
        case LWS_CALLBACK_HTTP_BODY: return httpBody(socket, input, len)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION: return httpBodyCompleted(socket)
        case LWS_CALLBACK_HTTP_WRITEABLE: return writeHTTP(socket)
        case LWS_CALLBACK_CLOSED_HTTP: return httpClosed(socket)
        case LWS_CALLBACK_RAW_RX: return unparsedRequest(socket, input, len)

        // Server+Sessions.swift
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: return confirmUpgrade(socket)
        case LWS_CALLBACK_ESTABLISHED: return established(socket)
        case LWS_CALLBACK_RECEIVE: return receive(socket, input, len)
        case LWS_CALLBACK_SERVER_WRITEABLE: return flush(socket)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: return peerClosing(socket, input, len)
        case LWS_CALLBACK_CLOSED: return closed(socket)

        default:
            return lws_callback_http_dummy(socket.wsi, reason, nil, input, len)
        }
    }

    /// The context's timer: the tick (`Server+Lifecycle.swift`).
    public func timerFired() {
        tick()
    }

    /// Takes what the journal's thread handed over.
    public func woken() {
        writingAtOnce { takeStorageEvents() }
    }
}
