import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    /// 1.1 clients in a crowd: their session lists coalesced (P11), none of them resynced (P17).
    @Suite("[P11] Session lists for many 1.1 clients, end to end", .serialized)
    struct PresenceListWireTests {
        /// The session ids a welcome or a presence list names.
        static func listed(_ message: JSONValue) -> Set<Int>? {
            guard case .array(let sessions)? = message["sessions"] else { return nil }
            return Set(sessions.compactMap { if case .number(let n)? = $0["session"] { Int(n) } else { nil } })
        }

        /// The session list a 1.1 client holds: its last list, or its welcome's when it got none after it.
        static func view(of client: TestClient) -> Set<Int>? {
            client.received.last { $0["type"] == .string("welcome") || ($0["type"] == .string("presence") && $0["sessions"] != nil) }
                .flatMap(listed)
        }

        static func counter(_ name: String, in metrics: String) -> Double? {
            metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
        }

        @Test("[P11] 200 clients of revision 1 join one canvas, then 50 leave: none is resynced, and each ends with the true list")
        func crowdOfLegacyClients() throws {
            let server = try ServerProcess()
            let started = Date()
            var clients: [TestClient] = []
            var ids: [Int] = []
            for i in 0..<200 {
                let client = try TestClient(server.url("crowd", "client=old-\(i)&name=old-\(i)"))
                guard case .number(let id)? = client.expect(type: "welcome")?["session"] else { return }
                clients.append(client)
                ids.append(Int(id))
            }
            func settle(_ clients: [TestClient], on truth: Set<Int>) {
                for client in clients {
                    client.pump(timeout: 30) { Self.view(of: $0) == truth }
                    #expect(Self.view(of: client) == truth, "a client's list has \(Self.view(of: client)?.count ?? 0) of \(truth.count) sessions")
                }
            }
            settle(clients, on: Set(ids))
            for client in clients.prefix(50) { client.close() }
            let staying = Array(clients.dropFirst(50))
            settle(staying, on: Set(ids.dropFirst(50)))
            for client in staying { #expect(client.all("welcome").count == 1, "a client was resynced") }
            // The 51st client saw 149 joins and 50 leaves after its own: one list each, uncoalesced.
            let lists = staying[0].all("presence").filter { $0["sessions"] != nil }.count
            #expect(lists < 150, "the 51st client got \(lists) lists for 199 joins and leaves")
            let metrics = try httpGet(port: server.port, "/metrics").body
            #expect(Self.counter("snapboard_resyncs_total", in: metrics) == 0)
            #expect(Self.counter("snapboard_slow_closes_total", in: metrics) == 0)
            // A list for each of 200 joins would be about 1.2 MB per client; coalesced, a client's lists take at
            // most 32 KiB a second (RoomConfig.presenceListBytesPerSecond), plus the last one, about 12 KB.
            let presence = try #require(Self.counter("snapboard_presence_bytes_total", in: metrics))
            let seconds = Date().timeIntervalSince(started)
            #expect(presence / 200 <= 32_768 * seconds + 32_000, "\(presence) presence bytes queued in all over \(seconds) s")
        }
    }
}
