import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    /// Telling people apart: presence colours, and the names history keeps.
    @Suite("Presence colours and history names, end to end", .serialized)
    struct PresenceColourTests {
        static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

        /// Client ids whose colour keys hash to `slot` (on an open server the key is `c:` and the id).
        static func clients(hashingTo slot: Int, count: Int, prefix: String) -> [String] {
            var found: [String] = []
            var n = 0
            while found.count < count {
                let id = "\(prefix)\(n)"
                if SessionInfo.hashSlot("c:" + id) == slot { found.append(id) }
                n += 1
            }
            return found
        }

        static func colours(_ welcome: JSONValue?) -> [String] {
            guard case .array(let sessions)? = welcome?["sessions"] else { return [] }
            return sessions.compactMap { if case .string(let c)? = $0["color"] { c } else { nil } }
        }

        @Test("[P11] Twelve sessions in one canvas get twelve distinct colours from the palette, even when their clients hash alike; a thirteenth repeats one")
        func twelveDistinct() throws {
            let server = try ServerProcess()
            // Every client id hashes to slot 5: without the free-slot rule all twelve would share a colour.
            let ids = Self.clients(hashingTo: 5, count: 13, prefix: "same-")
            var clients: [TestClient] = []
            for id in ids.prefix(12) {
                let client = try TestClient(server.url("colours", "client=\(id)&name=\(id)&revision=2"))
                _ = client.expect(type: "welcome")
                clients.append(client)
            }
            let watcher = try TestClient(server.url("colours", "client=\(ids[12])&revision=2"))
            let welcome = watcher.expect(type: "welcome")
            let colours = Self.colours(welcome)
            #expect(colours.count == 13)
            #expect(Set(colours.prefix(12)).count == 12, "\(colours)")
            #expect(Set(colours).isSubset(of: Set(SessionInfo.palette)))
            // The first took its hash slot; the thirteenth, with none free, its hash slot too.
            #expect(colours.first == SessionInfo.palette[5] && colours.last == SessionInfo.palette[5])
            // Each join's presence says the joiner's colour as the welcome lists it.
            let joins = { (c: TestClient) in c.all("presence").filter { $0["event"] == .string("join") } }
            clients[0].pump { joins($0).count == 12 }
            let joined = joins(clients[0])
            #expect(joined.compactMap { if case .string(let c)? = $0["color"] { c } else { nil } } == Array(colours.dropFirst()))
        }

        @Test("[P11] A person who reconnects keeps their colour while its slot is free, even when their hash slot has come free meanwhile")
        func keptAcrossReconnects() throws {
            let server = try ServerProcess()
            let pair = Self.clients(hashingTo: 3, count: 2, prefix: "pair-")
            let (first, second) = (pair[0], pair[1])
            // A watcher whose hash slot is neither 3 nor 4.
            let watcherID = (0..<100).map { "watch-\($0)" }.first { ![3, 4].contains(SessionInfo.hashSlot("c:" + $0)) } ?? "watch"
            let watcher = try TestClient(server.url("again", "client=\(watcherID)&revision=2"))
            _ = watcher.expect(type: "welcome")
            func join(_ id: String) throws -> (TestClient, session: JSONValue, colour: JSONValue) {
                let client = try TestClient(server.url("again", "client=\(id)&revision=2"))
                let welcome = client.expect(type: "welcome")
                let me = welcome?["session"] ?? .null
                let colour = watcher.expect("join of \(id)") { $0["type"] == .string("presence") && $0["event"] == .string("join") && $0["session"] == me }?["color"]
                return (client, me, colour ?? .null)
            }
            func leave(_ client: TestClient, _ session: JSONValue) {
                client.close()
                _ = watcher.expect("leave") { $0["type"] == .string("presence") && $0["event"] == .string("leave") && $0["session"] == session }
            }
            let a = try join(first)
            let b = try join(second)
            #expect(a.colour == .string(SessionInfo.palette[3]))
            #expect(b.colour == .string(SessionInfo.palette[4]), "the next free slot after its hash slot")
            // Slot 3 comes free; the second comes back and keeps slot 4 rather than taking its hash slot.
            leave(a.0, a.session)
            leave(b.0, b.session)
            let back = try join(second)
            #expect(back.colour == b.colour)
            // The first comes back too: its own slot, 3, is free.
            let firstBack = try join(first)
            #expect(firstBack.colour == a.colour)
            // A second session of the same client while the first is still there: the same colour.
            let twin = try join(second)
            #expect(twin.colour == b.colour)
        }

        @Test("[P19] History names each commit's author as presence showed it, null for the server's own commits, and keeps the names across a restart")
        func historyNames() throws {
            let first = try ServerProcess()
            let ada = try TestClient(first.url("names", "client=ada&name=Ada%20Lovelace"))
            _ = ada.expect(type: "welcome")
            ada.op("s1", "snap", #""x":200,"y":200,"shapeId":"a""#)
            _ = ada.expect(type: "ack") { $0["id"] == .string("s1") }
            let guest = try TestClient(first.url("names", "client=bob"))
            _ = guest.expect(type: "welcome")
            guest.op("s2", "snap", #""x":600,"y":600,"shapeId":"b""#)
            _ = guest.expect(type: "ack") { $0["id"] == .string("s2") }
            // A gesture its client leaves: the server commits it, on nobody's behalf.
            guest.op("g1", "move", #""shape":"b","phase":"begin""#)
            guest.op("g2", "move", #""shape":"b","phase":"update","dx":40,"dy":0"#)
            _ = ada.expect(type: "delta") { $0["live"] == .bool(true) }
            guest.close()
            _ = ada.expect(type: "delta") { $0["seq"] == .number(3) }
            ada.close()
            func names(_ server: ServerProcess) throws -> [JSONValue] {
                let history = try Self.json(try httpGet(port: server.port, "/v1/canvases/names/history").body)
                guard case .array(let ops)? = history["ops"] else { return [] }
                return ops.map { $0["name"] ?? .string("absent") }
            }
            // Bob gave no name: presence called him guest-N, and so does history.
            let guestSession = Int(Self.numberValue(guest.all("welcome").first?["session"] ?? .null))
            let expected: [JSONValue] = [.string("Ada Lovelace"), .string("guest-\(guestSession)"), .null]
            #expect(try names(first) == expected)
            _ = first.terminate()
            // The names are in the SQLite file: a new process reads them back.
            let second = try ServerProcess(data: first.dataPath)
            #expect(try names(second) == expected)
        }

        static func numberValue(_ value: JSONValue) -> Double {
            if case .number(let n) = value { n } else { -1 }
        }
    }
}
