import CSnapboardLWS

/// The event loop under libwebsockets. `poll` is its own loop, which walks every socket on each wake;
/// `libev` uses epoll through Debian's libwebsockets-evlib-ev plugin, so a wake costs what is ready,
/// not what is open. Measured, libev idles 10,000 connections at 5 % of a core instead of 63 %, and
/// serves 30k ops/s at 78 % instead of 98 %, so it is the default. libuv is left out: its plugin takes
/// over SIGTERM and stops without the 1001 closes of P18, and it measured slowest (docs/running.md, "Event loops").
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
