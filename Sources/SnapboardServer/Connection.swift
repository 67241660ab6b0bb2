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

    init(id: Int, canvas: String) {
        self.id = id
        self.canvas = canvas
    }
}

/// A pending HTTP response body, written in the writable callback after its headers.
struct HTTPBody {
    var bytes: [UInt8]
}
