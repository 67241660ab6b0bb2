import Foundation
import SnapboardAuth
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    /// Who creates canvases by joining them, and how many a node stores.
    @Suite("Canvas creation, end to end", .serialized)
    struct CanvasCreationTests {
        static let admin = "an-admin-token-that-is-longer-than-32-characters"

        /// The ids the listing names (admin token).
        static func listed(_ server: ServerProcess) throws -> String {
            try httpGet(port: server.port, "/v1/canvases?limit=1000", headers: ["Authorization: Bearer \(admin)"]).body
        }

        /// Joins `canvas` and waits for the welcome or the close: the close code, nil when welcomed.
        static func join(_ server: ServerProcess, _ canvas: String, _ query: String = "") throws -> UInt16? {
            let client = try TestClient(server.url(canvas, query))
            defer { client.close() }
            client.read(timeout: 10) { $0.closed != nil || !$0.all("welcome").isEmpty }
            return client.all("welcome").isEmpty ? client.closed?.code ?? 0 : nil
        }

        @Test("[P1] A viewer's token joining an unknown canvas is closed with 4004 and stores nothing; an editor's creates it")
        func viewersCreateNothing() throws {
            let server = try ServerProcess(["--auth-secret", AccessTests.secret, "--admin-token", Self.admin, "--idle-unload", "0.2"])
            // The attack as found: 80 viewer joins of 80 ids stored 80 canvases.
            for i in 0..<80 {
                let viewer = try AccessTests.token("squat-\(i)", .viewer, sub: "eve")
                #expect(try Self.join(server, "squat-\(i)", "token=\(viewer)") == CloseCode.canvasDeleted)
            }
            Thread.sleep(forTimeInterval: 0.5)  // past --idle-unload, when a created canvas would be checkpointed
            #expect(!(try Self.listed(server)).contains("squat-"), "viewers stored canvases")
            let reader = try AccessTests.token("squat-0", .editor)
            #expect(try httpGet(port: server.port, "/v1/canvases/squat-0?token=\(reader)").status == 404)
            // An editor creates it by joining; the viewer then joins it.
            let editor = try AccessTests.token("board", .editor)
            #expect(try Self.join(server, "board", "token=\(editor)") == nil)
            let viewer = try AccessTests.token("board", .viewer, sub: "bob")
            #expect(try Self.join(server, "board", "token=\(viewer)") == nil)
            // An editor's token asking for the viewer role still has the right to create.
            let narrowed = try AccessTests.token("quiet", .editor)
            #expect(try Self.join(server, "quiet", "token=\(narrowed)&role=viewer") == nil)
            Thread.sleep(forTimeInterval: 0.5)
            let listing = try Self.listed(server)
            #expect(listing.contains(#""id":"board""#) && listing.contains(#""id":"quiet""#), "\(listing)")
            #expect(server.terminate(timeout: 10) == 0)
        }

        @Test("[P1] On an open server every join creates, role=viewer included")
        func openModeCreates() throws {
            let server = try ServerProcess(["--admin-token", Self.admin])
            #expect(try Self.join(server, "audience", "role=viewer") == nil)
            #expect(try httpGet(port: server.port, "/v1/canvases/audience").status == 200)
            #expect(server.terminate(timeout: 10) == 0)
        }

        @Test("--max-stored-canvases: joins past it are closed with 4507, POST and imports get 507; a delete makes room; counted again at start")
        func storedCanvasLimit() throws {
            let arguments = ["--max-stored-canvases", "3", "--admin-token", Self.admin, "--idle-unload", "0.2"]
            let server = try ServerProcess(arguments)
            let auth = ["Authorization: Bearer \(Self.admin)", "Content-Type: application/json"]
            #expect(try Self.join(server, "one") == nil)
            #expect(try http(port: server.port, "POST", "/v1/canvases", body: #"{"id":"two"}"#, headers: auth).status == 201)
            #expect(try Self.join(server, "three") == nil)
            // The fourth, whichever way it would come, is refused, and a canvas already stored still opens.
            #expect(try Self.join(server, "four") == CloseCode.storageFull)
            let posted = try http(port: server.port, "POST", "/v1/canvases", body: #"{"id":"four"}"#, headers: auth)
            #expect(posted.status == 507 && posted.body.contains(#""error":"storage_full""#), "\(posted)")
            let exported = try httpGet(port: server.port, "/v1/canvases/two/export")
            #expect(exported.status == 200)
            #expect(try http(port: server.port, "PUT", "/v1/canvases/four", body: exported.body, headers: auth).status == 507)
            #expect(try http(port: server.port, "PUT", "/v1/canvases/two", body: exported.body, headers: auth).status == 200)
            #expect(try Self.join(server, "one") == nil)
            #expect(try httpGet(port: server.port, "/v1/canvases/four").status == 404)
            // A delete gives its place back.
            #expect(try http(port: server.port, "DELETE", "/v1/canvases/two", headers: auth).status == 204)
            #expect(try Self.join(server, "four") == nil)
            #expect(try Self.join(server, "five") == CloseCode.storageFull)
            Thread.sleep(forTimeInterval: 0.5)
            #expect(server.terminate(timeout: 10) == 0)
            // A restart counts what the file holds.
            let again = try ServerProcess(arguments, data: server.dataPath)
            #expect(try http(port: again.port, "POST", "/v1/canvases", body: #"{"id":"five"}"#, headers: auth).status == 507)
            #expect(try Self.join(again, "three") == nil)
            #expect(try Self.join(again, "five") == CloseCode.storageFull)
            #expect(again.terminate(timeout: 10) == 0)
        }
    }
}
