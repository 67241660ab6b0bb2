import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

extension EndToEnd {
    /// Numbers from an import or from the database are range-checked before the server computes with them:
    /// an out-of-range import is refused, and a stored canvas that fails the checks is refused with 503
    /// (WebSocket: `unavailable`) while the process and every other canvas keep working.
    @Suite("Out-of-range imports and stored data never crash the server", .serialized)
    struct StoredDataTests {
        static let json = ["Content-Type: application/json"]

        /// A canvas's export, taken from a live server: one shape, at seq 1.
        static func export(_ server: ServerProcess, _ canvas: String) throws -> String {
            let client = try TestClient(server.url(canvas))
            client.op("e1", "snap", #""x":100,"y":100"#)
            #expect(client.pump { $0.all("ack").count == 1 })
            client.close()
            let export = try httpGet(port: server.port, "/v1/canvases/\(canvas)/export")
            #expect(export.status == 200)
            return export.body
        }

        /// `text` with the first `"key":value` number replaced by `value`.
        static func replacing(_ key: String, in text: String, with value: String) -> String {
            guard let range = text.range(of: #""\#(key)":-?[0-9.eE+-]+"#, options: .regularExpression) else {
                Issue.record("no \(key) in \(text.prefix(200))")
                return text
            }
            return text.replacingCharacters(in: range, with: #""\#(key)":\#(value)"#)
        }

        /// A snap on `canvas` is acked: the server is alive and the canvas works.
        static func snapWorks(_ server: ServerProcess, _ canvas: String, _ id: String = "w1") throws -> Bool {
            let client = try TestClient(server.url(canvas))
            defer { client.close() }
            client.op(id, "snap", #""x":200,"y":200"#)
            return client.pump { $0.all("ack").count == 1 }
        }

        @Test("An import whose z or seq is 2^63−1, or whose rotation, size or maxSize is 1e308, is refused 400; the server lives")
        func overflowingImports() throws {
            let server = try ServerProcess()
            let export = try Self.export(server, "source")
            let bad = [
                ("z", "9223372036854775807"), ("z", "-9223372036854775808"), ("seq", "9223372036854775807"),
                ("rotation", "1e308"), ("maxSize", "1e308"), ("w", "1e308"), ("scale", "1e308"),
                ("layoutPadding", "1e308"), ("seq", "9007199254740992"), ("z", "9007199254740992"),
            ]
            for (key, value) in bad {
                let answer = try http(port: server.port, "PUT", "/v1/canvases/target", body: Self.replacing(key, in: export, with: value),
                                      headers: Self.json)
                #expect(answer.status == 400, "\(key) \(value): \(answer.status) \(answer.body)")
                #expect(answer.body.contains(#""error":"bad_request""#), "\(key) \(value)")
                #expect(server.isRunning, "\(key) \(value) stopped the server")
                guard server.isRunning else { return }
                // The next snap on the target is where a stored seq or z used to overflow.
                #expect(try Self.snapWorks(server, "target", "after-\(key)"))
            }
            #expect(server.isRunning)
            #expect(try Self.snapWorks(server, "source", "still"))
        }

        @Test("An import at the last seq is taken, and ops on it are refused out_of_range instead of overflowing")
        func lastSeq() throws {
            let server = try ServerProcess()
            let export = try Self.export(server, "source")
            let top = Self.replacing("z", in: Self.replacing("seq", in: export, with: "9007199254740991"), with: "9007199254740991")
            let answer = try http(port: server.port, "PUT", "/v1/canvases/full", body: top, headers: Self.json)
            #expect(answer.status == 200, "\(answer.body)")
            let client = try TestClient(server.url("full"))
            client.op("s", "snap", #""x":300,"y":300"#)
            let reject = client.take { $0["type"] == .string("reject") }
            #expect(reject?["code"] == .string("out_of_range"))
            #expect(server.isRunning)
            #expect(try Self.snapWorks(server, "source", "still"))
        }

        @Test("A join, a past state or a history page asking for seq 2^63−1, and ops with numbers past their ranges, are answered; the server lives")
        func hugeClientNumbers() throws {
            let server = try ServerProcess(environment: ["SNAPBOARD_READS_PER_SECOND_PER_IP": "1000"])
            _ = try Self.export(server, "c")
            let max = "9223372036854775807"
            let resumed = try TestClient(server.url("c", "since=\(max)&epoch=0000000000000000&revision=\(max)&client=x"))
            #expect(resumed.take { $0["type"] == .string("welcome") } != nil)
            resumed.op("m", "move", #""shape":"s1","dx":1e300,"dy":0"#)
            resumed.op("f", "scale", #""shape":"s1","factor":1e300"#)
            resumed.op("s", "snap", #""x":100,"y":100,"shape":{"kind":"polygon","sides":\#(max)}"#)
            for id in ["m", "f", "s"] {
                let reject = resumed.take { $0["type"] == .string("reject") || $0["type"] == .string("error") }
                #expect(reject != nil, "\(id): no answer")
            }
            #expect([400, 404].contains(try httpGet(port: server.port, "/v1/canvases/c?at=\(max)").status))
            #expect(try httpGet(port: server.port, "/v1/canvases/c/history?after=\(max)&limit=1000").status == 200)
            #expect(server.isRunning)
            #expect(try Self.snapWorks(server, "c", "still"))
        }

        /// An op log row: a `create` of a dot with these numbers (the store's binary layout, `LogCodec`).
        static func createRow(id: String, x: Double, y: Double, z: Int64) -> String {
            var bytes: [UInt8] = [1, 1]
            func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
            bytes += [UInt8(id.utf8.count), 0] + Array(id.utf8) + [0]
            for v in [x, y, 16, 16, 1, 0, 0.5, 0.5, 0.5, 1] { u64(v.bitPattern) }
            bytes.append(0)
            u64(UInt64(bitPattern: z))
            u64(42)
            return "X'" + bytes.map { String(format: "%02X", $0) }.joined() + "'"
        }

        static func sqlite(_ path: String, _ sql: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            process.arguments = [path, sql]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "sqlite3 \(sql)")
        }

        @Test("A stored canvas with out-of-range numbers answers 503 canvas_damaged and unavailable, is logged, and spares the rest")
        func damagedRows() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-damaged-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("data.sqlite").path
            let log = directory.appendingPathComponent("err.log").path
            let first = try ServerProcess(data: path)
            let damaged = ["seq-max", "z-max", "rotation-huge", "log-z-max", "log-nan", "log-seq-max"]
            for canvas in damaged + ["good"] { _ = try Self.export(first, canvas) }
            #expect(first.terminate() == 0)

            // Each canvas was checkpointed at the shutdown: its snapshot row is JSON, its log rows binary.
            func setSnapshot(_ canvas: String, _ key: String, _ value: String) throws {
                try Self.sqlite(path, """
                    UPDATE snapshot SET state = CAST(replace(CAST(state AS TEXT), '"\(key)":', '"\(key)":\(value),"_":') AS BLOB)
                    WHERE canvas = '\(canvas)'
                    """)
            }
            try Self.sqlite(path, """
                UPDATE snapshot SET seq = 9223372036854775807,
                    state = CAST(replace(CAST(state AS TEXT), '"seq":1', '"seq":9223372036854775807') AS BLOB) WHERE canvas = 'seq-max'
                """)
            try setSnapshot("z-max", "z", "9223372036854775807")
            try setSnapshot("rotation-huge", "rotation", "1e308")
            func logRow(_ canvas: String, seq: String, _ row: String) throws {
                try Self.sqlite(path, "INSERT INTO oplog (canvas, seq, client, op_id, op, at) VALUES ('\(canvas)', \(seq), NULL, NULL, \(row), 0)")
            }
            try logRow("log-z-max", seq: "2", Self.createRow(id: "big", x: 100, y: 100, z: .max))
            try logRow("log-nan", seq: "2", Self.createRow(id: "nan", x: .nan, y: 100, z: 5))
            try logRow("log-seq-max", seq: "9223372036854775807", Self.createRow(id: "far", x: 100, y: 100, z: 5))

            for round in 1...2 {
                // Each damaged canvas is read three ways: more heavy reads a second than one address gets by default.
                let server = try ServerProcess(data: path, environment: ["SNAPBOARD_READS_PER_SECOND_PER_IP": "1000"], errorLog: log)
                for canvas in damaged {
                    let answer = try httpGet(port: server.port, "/v1/canvases/\(canvas)")
                    #expect(answer.status == 503, "round \(round), \(canvas): \(answer.status) \(answer.body)")
                    #expect(answer.body.contains(#""error":"canvas_damaged""#), "\(canvas): \(answer.body)")
                    #expect(server.isRunning, "round \(round): \(canvas) stopped the server")
                    guard server.isRunning else { return }
                    let client = try TestClient(server.url(canvas))
                    client.op("x", "snap", #""x":300,"y":300"#)
                    client.read(timeout: 5) { $0.closed != nil }
                    #expect(client.closed?.code == CloseCode.unavailable, "\(canvas): \(String(describing: client.closed))")
                    #expect(server.isRunning, "round \(round): joining \(canvas) stopped the server")
                    for read in ["/export", "?at=1"] {
                        let answer = try httpGet(port: server.port, "/v1/canvases/\(canvas)\(read)")
                        #expect(answer.status == 503 && answer.body.contains("canvas_damaged"), "\(canvas)\(read): \(answer.status) \(answer.body)")
                    }
                }
                #expect(try Self.snapWorks(server, "good", "r\(round)"))
                #expect(try httpGet(port: server.port, "/v1/canvases/good").status == 200)
                #expect(server.terminate() == 0)
                let logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                for canvas in damaged { #expect(logged.contains(canvas), "\(canvas) is not in the log") }
                #expect(logged.contains("out of range") || logged.contains("damaged"))
            }
        }
    }
}
