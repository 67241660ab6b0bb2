import SnapboardAuth
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
    /// The tick's parts: each sends the live deltas of its share of the canvases, `tickMilliseconds /
    /// tickPhases` after the last, so that a tick's writes do not come in one burst (`RoomRegistry.phases`).
    public var tickPhases = 2
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
    /// How long a shutdown keeps its sessions after `/healthz` starts failing, so that a proxy's health
    /// check takes the node out of rotation before its clients reconnect (through the proxy, elsewhere).
    public var drainSeconds: Double = 0
    /// A WebSocket silent this long is sent a ping…
    public var pingSeconds = 30
    /// …and dropped when nothing (not even the pong) came for this long, so dead peers are not held.
    public var idleTimeoutSeconds = 60
    /// Verifies the access tokens every upgrade and `/v1/...` request must carry; nil runs the server
    /// open, with the role a client asks for.
    public var tokens: TokenVerifier?
    /// When set, `/metrics` answers only requests that carry it as a bearer token.
    public var adminToken: String?
    /// `/metrics` names its busiest canvases (`canvas="…"` series) only when this is set: canvas ids are
    /// capabilities on an open server, and `/metrics` is read by more people than the canvases.
    public var metricsCanvasNames = false
    /// Which `Origin` and `Host` headers are answered. With no hosts listed, a server on a loopback
    /// address answers only loopback names (against DNS rebinding).
    public var origins = OriginPolicy()
    /// How many connections and canvases the server takes on, and how long a handshake may take.
    public var limits = ServerLimits()
    /// Serve `https://` and `wss://` with this PEM certificate (chain) and private key; nil serves plain
    /// `http://` and `ws://` (behind a TLS-terminating proxy, or on loopback).
    public var tls: (certificate: String, privateKey: String)?
    /// Service threads, each serving its own share of the canvases (by a hash of the canvas id); with more
    /// than one, a thread of its own accepts connections and places each on its canvas's shard.
    public var shards = 1

    public init() {}
}
