import SnapboardAuth
import SnapboardProtocol

/// What one socket is, by the stage it has reached. The server keeps one per socket; service thread only.
///
/// The short-lived stages are `indirect`: an enum is as large as its largest case, and the server's table
/// holds one per open socket, nearly all of them WebSockets, which need only a reference. Inline, the
/// HTTP stages would make every entry about 280 bytes, some 470 bytes per idle connection with the
/// table's spare room.
enum SocketState {
    /// An upgrade accepted in `HTTP_CONFIRM_UPGRADE`, waiting for `ESTABLISHED`: from `peer`, with the
    /// token's claims when the server requires tokens.
    indirect case upgrading(CanvasAddress, AccessClaims?, peer: String)
    /// An open WebSocket on a canvas.
    case websocket(Connection)
    /// An HTTP request whose body is still arriving.
    indirect case receiving(APIRequest)
    /// An HTTP request: waiting for its canvas to load (nil), or its response in progress.
    indirect case http(HTTPResponse?)
}
