import SnapboardAuth
import SnapboardProtocol

/// What one socket is, by the stage it has reached. The server keeps one per socket; service thread only.
enum SocketState {
    /// An upgrade accepted in `HTTP_CONFIRM_UPGRADE`, waiting for `ESTABLISHED`: from `peer`, with the
    /// token's claims when the server requires tokens.
    case upgrading(CanvasAddress, AccessClaims?, peer: String)
    /// An open WebSocket on a canvas.
    case websocket(Connection)
    /// An HTTP request whose body is still arriving.
    case receiving(APIRequest)
    /// An HTTP request: waiting for its canvas to load (nil), or its response in progress.
    case http(HTTPResponse?)
}
