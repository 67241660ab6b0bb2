import SnapboardCore
import SnapboardLWS
import SnapboardRoom

/// Everything a server needs to start; `snapboard-server` fills it from flags and `SNAPBOARD_*` variables.
public struct ServerOptions: Sendable {
    public var host = "127.0.0.1"
    /// 0 asks the system for a free port; the server reports the one it got.
    public var port = 8080
    /// The config a canvas gets when it is first created.
    public var canvas = CanvasConfig()
    public var room = RoomConfig()
    /// How often live updates are coalesced and sent, in milliseconds.
    public var tickMilliseconds = 16
    /// How far the tick may stretch while the service thread is busy (`TickPacer`); equal to
    /// `tickMilliseconds`, the tick never changes.
    public var maxTickMilliseconds = 33
    /// The event loop libwebsockets runs on (falls back to poll when the libev plugin is missing).
    public var eventLoop = EventLoop.libev
    /// The largest message a client may send, in bytes.
    public var maxMessageBytes = 64 * 1024
    /// A canvas with no session for this many seconds is unloaded from memory.
    public var idleUnloadSeconds: Double = 30
    /// The kernel send buffer of each WebSocket, in bytes; nil leaves the kernel's autotuning (up to
    /// several MiB). A smaller buffer bounds per-connection kernel memory and lets backpressure show sooner.
    public var sendBufferBytes: Int?
    /// Where the browser client's files are read from at start; nil serves the ones shipped with the server.
    public var webRoot: String?
    /// How long a graceful shutdown waits for connections to close.
    public var shutdownGraceSeconds: Double = 3

    public init() {}
}
