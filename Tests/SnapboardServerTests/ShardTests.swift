import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import SnapboardServer

@Suite("Shards: placing canvases and connections")
struct ShardTests {
    @Test("A canvas's shard is a fixed hash of its id: the same in every run, spread over every shard")
    func owners() {
        // FNV-1a of the id's bytes: these values hold on any machine and in any run.
        #expect(Shards.owner(of: "a", among: 2) == 0)
        #expect(Shards.owner(of: "b", among: 2) == 1)
        #expect(Shards.owner(of: "anything", among: 1) == 0)
        var counts = [0, 0, 0, 0]
        for i in 0..<4000 { counts[Shards.owner(of: "canvas-\(i)", among: 4)] += 1 }
        // Evenly enough: each of 4 shards within 10 % of its quarter.
        #expect(counts.allSatisfy { abs($0 - 1000) < 100 }, "\(counts)")
    }

    @Test("The acceptor routes by the request line's path, without its query; what is no request line has no path")
    func requestLine() {
        func path(_ line: String) -> String? { Acceptor.path(inRequestLine: ArraySlice(line.utf8)) }
        #expect(path("GET /v1/canvases/team-1?token=x HTTP/1.1\r") == "/v1/canvases/team-1")
        #expect(path("DELETE /v1/canvases/b HTTP/1.1\r") == "/v1/canvases/b")
        #expect(path("GET /c/board#top HTTP/1.1") == "/c/board")
        #expect(path("garbage") == nil)
    }

    @Test("The acceptor waits for a whole request line, and sees a close")
    func peek() throws {
        var ends: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[0]) }
        #expect(Acceptor.requestPath(ends[0]) == .waiting)
        _ = "GET /v1/canv".withCString { send(ends[1], $0, strlen($0), 0) }
        #expect(Acceptor.requestPath(ends[0]) == .waiting)
        _ = "ases/a HTTP/1.1\r\nHost: x\r\n".withCString { send(ends[1], $0, strlen($0), 0) }
        #expect(Acceptor.requestPath(ends[0]) == .path("/v1/canvases/a"))
        // Peeked, not read: libwebsockets will read the whole request.
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(recv(ends[0], &buffer, 64, Int32(MSG_DONTWAIT)) == 38)
        close(ends[1])
        #expect(Acceptor.requestPath(ends[0]) == .closed)
    }

    @Test("A misrouted request is sent to the same path and query, encoded again")
    func location() {
        #expect(Server.location(path: "/v1/canvases/a", arguments: []) == "/v1/canvases/a")
        #expect(Server.location(path: "/v1/canvases/a", arguments: ["at=3", "token=a.b-c_d", "name=Ada Lovelace=1"])
            == "/v1/canvases/a?at=3&token=a.b-c_d&name=Ada%20Lovelace%3D1")
    }
}
