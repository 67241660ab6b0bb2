import SnapboardProtocol
import SnapboardRoom

/// One client socket. Service thread only, like the `lws *` it belongs to.
final class Connection {
    let id: Int
    let canvas: String
    let outbox = Outbox()
    /// The fragments of the message being received.
    var rx: [UInt8] = []
    /// True while the rest of an oversized or binary message is being skipped.
    var discarding = false
    var rxBinary = false
    /// True once the session joined its room; until then (while the canvas loads) messages wait in `backlog`.
    var joined = false
    var backlog: [Inbound] = []

    init(id: Int, canvas: String) {
        self.id = id
        self.canvas = canvas
    }
}

/// A received message, or the reason it is not one, before the room handles it.
enum Inbound {
    case text([UInt8])
    case invalid(ProtocolError)
}

/// An HTTP response in progress: its headers go in one writable callback, its body in the next.
enum HTTPResponse {
    case headers(Int, String, [UInt8])
    case body([UInt8])
}
