import SnapboardAuth
import SnapboardLWS
import SnapboardProtocol
import SnapboardRoom

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
    /// `--conformance-echo` only: a WebSocket on `/` that sends every message back.
    case echo(EchoConnection)
}

/// A WebSocket that sends back every message it receives, as it received it: the conformance suite's
/// peer (`make conformance`). Its messages go through the same receive path as a session's (fragments
/// joined, the size cap), then straight back. Service thread only.
final class EchoConnection {
    let socket: LWSSocket
    var assembler: FrameAssembler
    var queue: [(frame: Frame, binary: Bool)] = []
    var close: (code: UInt16, reason: String)?
    /// The upgrade completed (until then, a failed upgrade ends with `CLOSED_HTTP`).
    var established = false
    /// The peer sent its close frame first.
    var peerClosed = false

    init(socket: LWSSocket, maxMessageBytes: Int) {
        self.socket = socket
        assembler = FrameAssembler(limit: maxMessageBytes)
    }
}

/// One WebSocket session. Service thread only, like the socket it belongs to.
final class Connection {
    let id: Int
    let canvas: String
    let socket: LWSSocket
    let outbox = Outbox()
    /// A message in parts being written, a fragment per writable callback; nothing else goes out meanwhile.
    var fragments: FragmentWriter?
    var assembler: FrameAssembler
    /// True once the session joined its room; until then (while the canvas loads) messages wait in `backlog`.
    var joined = false
    var backlog: [Inbound] = []
    /// When the session's token expires (seconds since 1970); nil on an open server.
    var tokenExpires: Double?
    /// The peer's IP address, as the per-IP limit counts it.
    let peer: String
    /// The peer sent its close frame first: nothing of ours is left for it to read, so no lingering close.
    var peerClosed = false
    /// The close code the peer sent, when it closed first (for the log).
    var peerCloseCode: UInt16?
    /// The client's stable id, when it gave one (for the log).
    var client: String?
    /// When the session opened, on the server's clock (for the log).
    var openedAt = 0.0

    init(id: Int, canvas: String, socket: LWSSocket, peer: String, maxMessageBytes: Int) {
        self.id = id
        self.canvas = canvas
        self.socket = socket
        self.peer = peer
        assembler = FrameAssembler(limit: maxMessageBytes)
    }
}

/// A received message, or the reason it is not one, before the room handles it.
enum Inbound {
    case text([UInt8])
    case invalid(ProtocolError)
}

/// An HTTP response in progress: its headers go in one writable callback, its body in the next.
struct HTTPResponse {
    var status: Int
    var contentType: String
    var body: Frame
    /// Headers beyond the status, type and length, as name/value pairs.
    var headers: [(String, String)]
    var headersSent = false

    init(_ status: Int, _ contentType: String, _ body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = Frame(payload: body)
        self.headers = headers
    }

    /// A JSON error body with a stable `error` code.
    static func error(_ status: Int, _ code: String, _ message: String? = nil) -> HTTPResponse {
        var w = JSONWriter()
        w.beginObject()
        w.string("error", code)
        if let message { w.string("message", message) }
        w.endObject()
        return HTTPResponse(status, "application/json", w.bytes)
    }
}
