import Testing

@testable import SnapboardProtocol

@Suite("Canonical request paths")
struct RequestPathTests {
    @Test("Plain paths are canonical", arguments: [
        "/", "/healthz", "/metrics", "/v1/canvases", "/v1/canvases/a-b_C9", "/v1/canvases/a/history", "/c/board", "/web/lib/client.js",
        "/web/", "/.well-known", "/a..b", "/~x",
    ])
    func canonical(_ path: String) {
        #expect(RequestPath.isCanonical(path))
    }

    @Test("Variants that decode or normalise to another path are not", arguments: [
        "", "v1/canvases/a", "//v1/canvases/a", "/v1//canvases/a", "/v1/canvases//a", "/./v1/canvases/a", "/v1/canvases/./a",
        "/v1/canvases/a/.", "/x/../v1/canvases/a", "/v1/canvases/..", "/v1/canvases/%61", "/v1/canvases%2Fa", "/v1/canvases/a;b",
        "/v1/canvases/a&b", "/v1/canvases/a+b", "/v1/canvases/a b", "http://host/v1/canvases/a", "/v1/canvases/a\\b", "/v1/canvases/\u{e9}",
    ])
    func notCanonical(_ path: String) {
        #expect(!RequestPath.isCanonical(path))
    }
}
