import CLibWebSockets
import SnapboardCore
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
    /// The event loop libwebsockets runs on (falls back to poll when the libev plugin is missing).
    public var eventLoop = EventLoop.libev
    /// The largest message a client may send, in bytes.
    public var maxMessageBytes = 64 * 1024
    /// A canvas with no session for this many seconds is unloaded from memory.
    public var idleUnloadSeconds: Double = 30
    /// The kernel send buffer of each WebSocket, in bytes; nil leaves the kernel's autotuning (up to
    /// several MiB). A smaller buffer bounds per-connection kernel memory and lets backpressure show sooner.
    public var sendBufferBytes: Int?
    /// How long a graceful shutdown waits for connections to close.
    public var shutdownGraceSeconds: Double = 3

    public init() {}
}

/// The event loop under libwebsockets. `poll` is its own loop, which walks every socket on each wake;
/// `libev` uses epoll through Debian's libwebsockets-evlib-ev plugin, so a wake costs what is ready,
/// not what is open. Measured, libev idles 10,000 connections at 5 % of a core instead of 63 %, and
/// serves 30k ops/s at 78 % instead of 98 %, so it is the default. libuv is left out: its plugin takes
/// over SIGTERM and stops without the 1001 closes of P18, and it measured slowest (README, Performance).
public enum EventLoop: String, CaseIterable, Sendable {
    case poll
    case libev

    var code: Int32 {
        switch self {
        case .poll: Int32(SNAPBOARD_LOOP_POLL.rawValue)
        case .libev: Int32(SNAPBOARD_LOOP_LIBEV.rawValue)
        }
    }
}
