import Foundation
import SnapboardProtocol
import Testing

extension EndToEnd {
    @Suite("End to end: the real server over real sockets", .serialized)
    struct EndToEndTests {
        @Test("Smoke: two clients on one canvas see the same committed delta, the sender gets its ack")
        func smoke() throws {
            let server = try ServerProcess()
            let a = try TestClient(server.url("smoke", "name=ann"))
            let b = try TestClient(server.url("smoke", "name=ben"))
            #expect(a.expect(type: "welcome")?["seq"] == .number(0))
            #expect(b.expect(type: "welcome") != nil)
            a.op("o1", "snap", #""x":100,"y":100"#)
            let da = a.expect(type: "delta"), db = b.expect(type: "delta")
            #expect(da == db && da?["seq"] == .number(1))
            #expect(a.expect(type: "ack")?["seq"] == .number(1))
            let (status, body) = try httpGet(port: server.port, "/v1/canvases/smoke")
            #expect(status == 200 && body.contains("\"seq\":1"))
        }
    }
}
