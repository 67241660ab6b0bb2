import Foundation
import SnapboardLock
import SnapboardProtocol
import SnapboardTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    /// Exports, past states and history pages run on reader threads of their own, bounded and rate-limited,
    /// and never hold up another canvas's commits.
    @Suite("Heavy reads, end to end", .serialized)
    struct HeavyReadTests {
        static let json = ["Content-Type: application/json"]

        /// Stores canvas `id` with `count` small shapes in a grid, through an import.
        static func importBigCanvas(_ server: ServerProcess, _ id: String, count: Int) throws {
            #expect(try http(port: server.port, "POST", "/v1/canvases/\(id)", body: #"{"width":4096,"height":4096}"#, headers: json).status == 201)
            let empty = try httpGet(port: server.port, "/v1/canvases/\(id)/export").body
            let shapes = (0..<count).map { i in
                #"{"id":"s\#(i)","kind":"roundedRect","x":\#(20 + (i % 100) * 40),"y":\#(20 + (i / 100) * 40),"w":16,"h":16,"#
                    + #""scale":1,"rotation":0,"fill":{"h":0.5,"s":0.5,"b":0.5,"a":1},"hatch":"none","z":\#(i)}"#
            }.joined(separator: ",")
            let body = empty.replacingOccurrences(of: #""shapes":[]"#, with: #""shapes":[\#(shapes)]"#)
            // On raw HTTP with a long timeout: a debug build on a busy machine takes a while over 10,000 shapes.
            let imported = try RawHTTP.exchange(port: server.port, "PUT /v1/canvases/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body, timeout: 120)
            #expect(imported.status == 200, "\(imported.status) \(imported.body.prefix(300))")
        }

        @Test("Eight export loops on a 10,000-shape canvas: a writer on another canvas keeps getting acks; reads past the bound get 503 busy with Retry-After")
        func exportsDoNotStallWriters() throws {
            let server = try ServerProcess(["--read-workers", "1", "--max-queued-reads", "1", "--reads-per-second-per-ip", "100000",
                                            "--ops-per-second", "100000"])
            try Self.importBigCanvas(server, "big", count: 10_000)
            let writer = try TestClient(server.url("desk"))
            _ = writer.expect(type: "welcome")
            let stop = Locked(false)
            let answers = Locked<[String: Int]>([:])
            let done = DispatchGroup()
            for _ in 0..<8 {
                done.enter()
                Thread.detachNewThread {
                    defer { done.leave() }
                    while !stop.withLock({ $0 }) {
                        guard let answer = try? RawHTTP.exchange(port: server.port, "GET /v1/canvases/big/export HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                        else { continue }
                        let key = answer.status == 503
                            ? "503 \(answer.header("Retry-After") != nil ? "retry" : "no-retry") \(answer.body.contains(#""error":"busy""#) ? "busy" : answer.body)"
                            : "\(answer.status)"
                        answers.withLock { $0[key, default: 0] += 1 }
                    }
                }
            }
            // The writer's every op is acked while the exports go on (the bound is generous: no timing here).
            var acked = 0
            for n in 0..<60 {
                writer.op("w\(n)", "snap", #""x":\#(10 + n * 15),"y":300"#)
                if writer.expect(type: "ack", timeout: 30) { $0["id"] == .string("w\(n)") } != nil { acked += 1 }
                Thread.sleep(forTimeInterval: 0.02)
            }
            // On a slow machine the first exports may still be running: the loops go on until one is answered.
            let patience = Date().addingTimeInterval(120)
            while Date() < patience, answers.withLock({ ($0["200"] ?? 0) == 0 || ($0["503 retry busy"] ?? 0) == 0 }) {
                Thread.sleep(forTimeInterval: 0.2)
            }
            stop.withLock { $0 = true }
            done.wait()
            #expect(acked == 60)
            let seen = answers.withLock { $0 }
            #expect((seen["200"] ?? 0) > 0, "\(seen)")
            #expect((seen["503 retry busy"] ?? 0) > 0, "no read was refused past the bound: \(seen)")
            #expect(Set(seen.keys).isSubset(of: ["200", "503 retry busy"]), "\(seen)")
            // The exports saw the canvas whole, and the server still answers everything (once the reads the
            // loops left behind are done: a busy answer says to try again).
            var export = try httpGet(port: server.port, "/v1/canvases/big/export")
            while export.status == 503, Date() < patience.addingTimeInterval(120) {
                Thread.sleep(forTimeInterval: 1)
                export = try httpGet(port: server.port, "/v1/canvases/big/export")
            }
            #expect(export.status == 200 && export.body.contains(#""id":"s9999""#))
            #expect(try httpGet(port: server.port, "/v1/canvases/desk/history?limit=1000").body.contains(#""seq":60"#))
            #expect(server.terminate(timeout: 60) == 0)
        }

        @Test("A read sees every commit acked before it; past states and history come from the reader threads too")
        func readsSeeAckedCommits() throws {
            let server = try ServerProcess(["--ops-per-second", "100000", "--reads-per-second-per-ip", "100000"])
            let writer = try TestClient(server.url("fresh"))
            _ = writer.expect(type: "welcome")
            for n in 0..<20 {
                writer.op("f\(n)", "snap", #""x":\#(40 + n * 40),"y":100,"shapeId":"f\#(n)""#)
                _ = writer.expect(type: "ack") { $0["id"] == .string("f\(n)") }
                // Acked means durable: the next export, on its own connection, holds it.
                #expect(try httpGet(port: server.port, "/v1/canvases/fresh/export").body.contains(#""id":"f\#(n)""#))
            }
            #expect(try httpGet(port: server.port, "/v1/canvases/fresh?at=5").body.contains(#""seq":5"#))
            #expect(try httpGet(port: server.port, "/v1/canvases/fresh/history?after=10&limit=3").body.contains(#""seq":11"#))
            #expect(server.terminate(timeout: 10) == 0)
        }

        @Test("Per address and per token: heavy reads past the rate get 429 rate_limited with Retry-After; others go on")
        func rateLimits() throws {
            let server = try ServerProcess(["--reads-per-second-per-ip", "3"])
            #expect(try http(port: server.port, "POST", "/v1/canvases/page", body: "{}", headers: Self.json).status == 201)
            var statuses: [Int] = []
            var refusal: RawHTTP.Answer?
            for path in ["/v1/canvases/page/export", "/v1/canvases/page/history", "/v1/canvases/page?at=0"] {
                for _ in 0..<4 {
                    let answer = try RawHTTP.exchange(port: server.port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    statuses.append(answer.status)
                    if answer.status == 429 { refusal = answer }
                }
            }
            #expect(statuses.contains(200) && statuses.contains(429), "\(statuses)")
            #expect(Set(statuses).isSubset(of: [200, 429]), "\(statuses)")
            #expect(refusal?.header("Retry-After") == "1")
            #expect(refusal?.body.contains(#""error":"rate_limited""#) == true)
            // The live canvas is not a heavy read.
            #expect(try httpGet(port: server.port, "/v1/canvases/page").status == 200)
            // A second later the address may read again.
            Thread.sleep(forTimeInterval: 1.2)
            #expect(try httpGet(port: server.port, "/v1/canvases/page/export").status == 200)
            #expect(server.terminate(timeout: 10) == 0)

            let secured = try ServerProcess(["--auth-secret", AccessTests.secret, "--reads-per-second-per-token", "2",
                                             "--reads-per-second-per-ip", "100000"])
            let editor = try AccessTests.token("kept", .editor)
            let writer = try TestClient(secured.url("kept", "token=\(editor)"))
            _ = writer.expect(type: "welcome")
            writer.op("k", "snap", #""x":100,"y":100"#)
            _ = writer.expect(type: "ack")
            let ada = try AccessTests.token("kept", .viewer, sub: "ada"), bob = try AccessTests.token("kept", .viewer, sub: "bob")
            var adas: [Int] = []
            for _ in 0..<5 {
                adas.append(try httpGet(port: secured.port, "/v1/canvases/kept/history", headers: ["Authorization: Bearer \(ada)"]).status)
            }
            #expect(adas.contains(200) && adas.contains(429), "\(adas)")
            // Another token from the same address has its own budget.
            #expect(try httpGet(port: secured.port, "/v1/canvases/kept/history?token=\(bob)").status == 200)
            #expect(secured.terminate(timeout: 10) == 0)
        }
    }
}
