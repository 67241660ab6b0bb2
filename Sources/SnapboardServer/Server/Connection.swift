import SnapboardLWS
import SnapboardRoom

/// One WebSocket session. Service thread only, like the socket it belongs to.
final class Connection {
    let id: Int
    let canvas: String
    let socket: LWSSocket
    let outbox = Outbox()
    /// A message in parts being written, a fragment per writable callback; nothing else goes out meanwhile.
    var fragments: FragmentWriter?
    var assembler: FrameAssembler
    /// When the message `assembler` holds unfinished was begun, on the server's clock; nil when it holds none.
    var unfinishedSince: Double?
    /// True once the session joined its room; until then (while the canvas loads) messages wait in `backlog`.
    var joined = false
    var backlog: [Inbound] = []
    var backlogBytes = 0
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
