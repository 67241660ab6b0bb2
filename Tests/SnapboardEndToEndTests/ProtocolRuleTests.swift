import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

extension EndToEnd {
    @Suite("Protocol rules, end to end", .serialized)
    struct ProtocolRuleTests {
        @Test("[P1][P19] Other paths get 404, malformed canvas ids and queries 400; /healthz and /metrics answer")
        func routing() throws {
            let server = try ServerProcess()
            #expect(try httpGet(port: server.port, "/nope").status == 404)
            #expect(try httpGet(port: server.port, "/v1/canvases/has%20space").status == 400)
            #expect(try httpGet(port: server.port, "/v1/canvases/" + String(repeating: "x", count: 65)).status == 400)
            let upgrade = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
            #expect(try httpGet(port: server.port, "/v1/elsewhere/x", headers: upgrade).status == 404)
            #expect(try httpGet(port: server.port, "/v1/canvases/bad!id", headers: upgrade).status == 400)
            #expect(try httpGet(port: server.port, "/v1/canvases/ok?zoom=0", headers: upgrade).status == 400)
            #expect(try httpGet(port: server.port, "/v1/canvases/ok?since=x", headers: upgrade).status == 400)
            #expect(try httpGet(port: server.port, "/v1/canvases/ok", headers: upgrade).status == 101)
            let health = try httpGet(port: server.port, "/healthz")
            #expect(health.status == 200 && health.body.contains(#""status":"ok""#))
            let client = try TestClient(server.url("metrics"))
            client.op("m1", "snap", #""x":10,"y":10"#)
            _ = client.expect(type: "ack")
            let metrics = try httpGet(port: server.port, "/metrics").body
            for line in ["snapboard_connections ", #"snapboard_ops_total{kind="snap"} 1"#, "snapboard_acks_total 1",
                         "snapboard_canvases_loaded ", "snapboard_op_ack_seconds_count 1", "# TYPE snapboard_op_ack_seconds histogram"] {
                #expect(metrics.contains(line), "\(line)")
            }
        }

        @Test("/metrics carries the process's own figures under Prometheus' usual names: CPU, memory, descriptors, start time")
        func processFigures() throws {
            let server = try ServerProcess()
            let lines = try httpGet(port: server.port, "/metrics").body.split(separator: "\n")
            func value(_ name: String) -> Double? {
                lines.first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
            }
            let rss = value("process_resident_memory_bytes") ?? 0, sampled = (server.sampler.rssMB() ?? 0) * 1_048_576
            #expect(rss > 1_000_000 && abs(rss - sampled) < 0.5 * sampled, "\(rss) against /proc's \(sampled)")
            #expect((value("process_open_fds") ?? 0) >= 4 && (value("process_max_fds") ?? 0) > (value("process_open_fds") ?? 0))
            #expect((value("process_cpu_seconds_total") ?? -1) > 0)
            let started = value("process_start_time_seconds") ?? 0
            #expect(abs(started - Date().timeIntervalSince1970) < 120, "started \(started)")
        }

        @Test("[P19] Methods a path does not answer get 405 with Allow and a JSON error, a body or not, and change nothing", arguments: ["DELETE", "POST", "PUT", "PATCH", "OPTIONS"])
        func otherMethods(method: String) throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("kept"))
            ann.op("k1", "snap", #""x":100,"y":100"#)
            _ = ann.expect(type: "ack")
            let fd = try connectLoopback(port: server.port, receiveTimeout: 5)
            defer { Glibc.close(fd) }
            let body = method == "DELETE" || method == "OPTIONS" ? "" : #"{"shapes":[]}"#
            // A canvas's history is only read: every other method is refused.
            let request = "\(method) /v1/canvases/kept/history HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
            _ = request.withCString { send(fd, $0, strlen($0), 0) }
            var answer: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            // Up to the end of the JSON body (the connection may stay open).
            while !answer.reversed().starts(with: Array("}".utf8)), case let n = recv(fd, &buffer, buffer.count, 0), n > 0 { answer += buffer[0..<n] }
            let text = String(decoding: answer, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 405"), "\(text)")
            #expect(text.lowercased().contains("allow: get"))
            #expect(text.contains(#""error":"method_not_allowed""#))
            #expect(try httpGet(port: server.port, "/v1/canvases/kept").body.contains(#""seq":1"#))
        }

        @Test("[P5][P8][P19] Under a mixed concurrent workload every client sees the same committed deltas in order, and its replica equals GET")
        func sameOrderAndConvergence() throws {
            let server = try ServerProcess()
            let clients = try (0..<3).map { try TestClient(server.url("mixed", "name=c\($0)")) }
            // Every client in the room before anyone sends: a client whose ops arrive while the canvas loads
            // has them handled as it joins, before the clients after it have joined (they get those commits
            // in their welcome, not as deltas).
            for c in clients { _ = c.expect(type: "welcome") }
            for (i, c) in clients.enumerated() {
                for k in 0..<8 { c.op("s\(i)-\(k)", "snap", #""x":\#(100 + k * 90),"y":\#(100 + i * 200),"shapeId":"c\#(i)k\#(k)""#) }
            }
            for (i, c) in clients.enumerated() {
                for k in 0..<8 {
                    let id = "c\(i)k\(k)"
                    c.op("g\(i)-\(k)a", "move", #""shape":"\#(id)","phase":"begin""#)
                    for step in 1...5 { c.op("g\(i)-\(k)u\(step)", "move", #""shape":"\#(id)","phase":"update","dx":\#(step * 7),"dy":\#(step * 3)"#) }
                    c.op("g\(i)-\(k)e", "move", #""shape":"\#(id)","phase":"end","dx":35,"dy":15"#)
                    c.op("r\(i)-\(k)", "rotate", #""shape":"\#(id)","radians":0.3"#)
                    c.op("z\(i)-\(k)", "scale", #""shape":"\#(id)","factor":1.2"#)
                }
            }
            // 3 clients × 8 × (snap + end + rotate + scale) = 96 commits.
            for c in clients { c.pump(timeout: 10) { Replica($0.received).committed.count == 96 } }
            // Each client's copies are the same but for haptics, which only the actor's copy carries.
            let sequences = clients.map { c in
                c.all("delta").filter { $0["live"] == .bool(false) }.map { [$0["seq"], $0["ops"], $0["shapes"], $0["by"]] }
            }
            #expect(sequences[0].map { $0[0] } == (1...96).map { .number(Double($0)) })
            #expect(sequences[0] == sequences[1] && sequences[1] == sequences[2],
                    "\(sequences.map(\.count)) \(clients.map { $0.all("welcome").count }) \(clients.map { $0.all("error").map { $0["message"] ?? .null } }) \(clients.map { $0.all("reject").map { $0["code"] ?? .null } })")
            let truth = try Replica.shapes(ofSnapshot: httpGet(port: server.port, "/v1/canvases/mixed").body)
            #expect(truth.count == 24)
            for c in clients { #expect(Replica(c.received).shapes == truth) }
            // Acks follow the deltas once the commits are durable.
            for c in clients { c.pump { $0.all("ack").count == 32 } }
            #expect(clients.map { $0.all("ack").count } == [32, 32, 32])
        }

        @Test("[P9] Haptics reach only the dragger, once per engagement; the end clears the guides for everyone")
        func hapticsOnlyForTheActor() throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("haptic")), ben = try TestClient(server.url("haptic"))
            ann.op("a1", "snap", #""x":300,"y":300,"shapeId":"a","shape":{"kind":"roundedRect","w":100,"h":100}"#)
            ann.op("a2", "snap", #""x":700,"y":600,"shapeId":"b","shape":{"kind":"roundedRect","w":100,"h":100}"#)
            _ = ann.expect(type: "ack") { $0["id"] == .string("a2") }
            ben.op("b1", "move", #""shape":"b","phase":"begin""#)
            // Approach a's right edge (338) and wiggle inside the grip for a while: one engagement.
            for (i, dx) in [-313.0, -311, -312, -309.5, -313, -310].enumerated() {
                ben.op("b\(i + 2)", "move", #""shape":"b","phase":"update","dx":\#(dx),"dy":-200"#)
                usleep(25_000)
            }
            ben.op("b9", "move", #""shape":"b","phase":"end","dx":-310,"dy":-200"#)
            _ = ben.expect(type: "ack")
            _ = ann.expect(type: "delta") { $0["seq"] == .number(3) }
            func haptics(_ c: TestClient) -> Int {
                c.all("delta").reduce(0) { n, d in
                    guard case .array(let events)? = d["events"] else { return n }
                    return n + events.filter { $0["type"] == .string("haptic") }.count
                }
            }
            #expect(haptics(ben) == 1)
            #expect(haptics(ann) == 0)
            let guidesSeen = ann.all("delta").contains { d in
                if case .array(let e)? = d["events"] { return e.contains { $0["type"] == .string("guide") } } else { return false }
            }
            #expect(guidesSeen)
            #expect(ann.all("delta").last?["events"] == .array([]))
        }

        @Test("[P14] A lease expires after the timeout without updates, committing the last state; then others may take it")
        func leaseExpiry() throws {
            let server = try ServerProcess(["--lease-timeout", "0.3"])
            let ann = try TestClient(server.url("expiry")), ben = try TestClient(server.url("expiry"))
            ann.op("a1", "snap", #""x":500,"y":400,"shapeId":"s""#)
            ann.op("a2", "move", #""shape":"s","phase":"begin""#)
            ann.op("a3", "move", #""shape":"s","phase":"update","dx":40,"dy":0"#)
            _ = ann.expect(type: "delta") { $0["live"] == .bool(true) }
            ben.op("b1", "move", #""shape":"s","phase":"begin""#)
            #expect(ben.expect(type: "reject")?["code"] == .string("shape_locked"))
            let commit = ben.expect(type: "delta", timeout: 3) { $0["seq"] == .number(2) }
            #expect(commit?["ops"] == .array([]) && commit?["live"] == .bool(false))
            // An exact move, so that it changes something (a snapped one unit would snap back: P14, it commits nothing).
            ben.op("b2", "move", #""shape":"s","dx":1,"dy":0,"snap":false"#)
            #expect(ben.expect(type: "ack")?["seq"] == .number(3))
        }

        @Test("[P15] A reconnecting client that resends an acked op id gets the original ack; nothing is applied twice")
        func exactlyOnce() throws {
            let server = try ServerProcess()
            let first = try TestClient(server.url("once", "client=phone-1"))
            first.op("op-1", "snap", #""x":100,"y":100"#)
            #expect(first.expect(type: "ack")?["seq"] == .number(1))
            first.socket.abort()
            let again = try TestClient(server.url("once", "client=phone-1&since=1"))
            again.op("op-1", "snap", #""x":100,"y":100"#)
            again.op("op-2", "snap", #""x":200,"y":100"#)
            #expect(again.expect(type: "ack")?["seq"] == .number(1))
            #expect(again.expect(type: "ack")?["seq"] == .number(2))
            let body = try httpGet(port: server.port, "/v1/canvases/once").body
            #expect(try Replica.shapes(ofSnapshot: body).count == 2)
        }

        @Test("[P16] since inside the retained log resumes with exactly the missed deltas; outside it, a full welcome")
        func resume() throws {
            let server = try ServerProcess()
            let writer = try TestClient(server.url("resume"))
            guard case .string(let epoch)? = writer.expect(type: "welcome")?["epoch"] else { throw CancellationError() }
            for i in 1...6 { writer.op("w\(i)", "snap", #""x":\#(i * 100),"y":100"#) }
            writer.pump { $0.all("ack").count == 6 }
            let resumed = try TestClient(server.url("resume", "since=4&epoch=\(epoch)"))
            let welcome = resumed.expect(type: "welcome")
            #expect(welcome?["resumed"] == .bool(true) && welcome?["shapes"] == .array([]))
            resumed.pump(timeout: 1)
            #expect(resumed.all("delta").map { $0["seq"] } == [.number(5), .number(6)])
            let fresh = try TestClient(server.url("resume", "since=999&epoch=\(epoch)"))
            let full = fresh.expect(type: "welcome")
            #expect(full?["resumed"] == .bool(false))
            if case .array(let shapes)? = full?["shapes"] { #expect(shapes.count == 6) } else { Issue.record("no shapes") }
        }

        @Test("[P18] SIGTERM commits gestures in progress, closes every connection with 1001 and exits")
        func gracefulShutdown() throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("bye")), ben = try TestClient(server.url("bye"))
            ann.op("a1", "snap", #""x":500,"y":400,"shapeId":"s""#)
            ann.op("a2", "move", #""shape":"s","phase":"begin""#)
            ann.op("a3", "move", #""shape":"s","phase":"update","dx":64,"dy":0"#)
            _ = ben.expect(type: "delta") { $0["live"] == .bool(true) }
            #expect(server.terminate() == 0)
            ben.pump(timeout: 3) { $0.closed != nil }
            #expect(ben.closed?.code == 1001)
            let last = ben.all("delta").last
            #expect(last?["live"] == .bool(false) && last?["seq"] == .number(2))
        }

        @Test("[P18] With --drain-seconds, /healthz answers 503 draining at once while sessions carry on; then they close with 1001")
        func drainingHealth() throws {
            let server = try ServerProcess(["--drain-seconds", "2"])
            let ann = try TestClient(server.url("drain"))
            _ = ann.expect(type: "welcome")
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
            kill(server.process.processIdentifier, SIGTERM)
            usleep(300_000)
            let health = try httpGet(port: server.port, "/healthz")
            #expect(health.status == 503 && health.body.contains(#""status":"draining""#), "\(health)")
            #expect(try httpGet(port: server.port, "/v1/canvases/drain", headers: AccessTests.upgrade).status == 503)
            // The session still works while the proxy takes the node out of rotation…
            ann.op("d1", "snap", #""x":100,"y":100"#)
            #expect(ann.expect(type: "ack")?["seq"] == .number(1))
            #expect(ann.closed == nil)
            // …and is closed once the drain is over.
            ann.pump(timeout: 5) { $0.closed != nil }
            #expect(ann.closed?.code == 1001)
            #expect(server.terminate(timeout: 10) == 0)
        }

        @Test("[P2][P10][P13] Every message the server sends matches its JSON schema")
        func schemas() throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("schema", "name=ann")), ben = try TestClient(server.url("schema", "role=viewer"))
            // A 1.4 client, whose live deltas carry placements (P8).
            let cy = try TestClient(server.url("schema", "name=cy&revision=4"))
            ann.op("a1", "snap", #""x":300,"y":300,"shapeId":"a","shape":{"kind":"star","points":7,"inner":0.5,"hatch":"hatch"}"#)
            ann.op("a2", "snap", #""x":600,"y":300,"shape":{"kind":"polygon","sides":5,"fill":{"h":0.5,"s":0.5,"b":0.5,"a":1}}"#)
            ann.op("a3", "snap", #""x":600,"y":600,"shape":{"kind":"fractal","depth":3}"#)
            ann.op("a4", "move", #""shape":"a","phase":"begin""#)
            ann.op("a5", "move", #""shape":"a","phase":"update","dx":297,"dy":2"#)
            usleep(50_000)
            ann.op("a6", "move", #""shape":"a","phase":"end","dx":297,"dy":2"#)
            ann.op("a7", "rotate", #""shape":"a","radians":0.26"#)
            ann.op("a8", "scale", #""shape":"a","factor":0,"ax":1,"ay":1"#)
            ann.send(#"{"type":"ping","t":"x"}"#)
            ann.send("nope")
            ben.send(#"{"type":"cursor","x":10,"y":20}"#)
            _ = ann.expect(type: "cursors")
            ben.send(#"{"type":"cursor"}"#)
            _ = ann.expect(type: "cursors")
            ben.op("b1", "clear")
            ann.op("a9", "clear")
            _ = ann.expect(type: "ack") { $0["id"] == .string("a9") }
            _ = ben.expect(type: "reject")
            ben.close()
            ann.pump(timeout: 0.5)
            cy.pump(timeout: 0.5)
            #expect(cy.received.contains { $0["placed"] != nil } && !ann.received.contains { $0["placed"] != nil })
            let types = Set((ann.received + ben.received).compactMap { m -> String? in if case .string(let t)? = m["type"] { t } else { nil } })
            #expect(types == ["welcome", "presence", "delta", "ack", "reject", "error", "pong", "cursors"])
            let problems = try schemaProblems(ann.received + ben.received + cy.received)
            #expect(problems == nil, "\(problems ?? "")")
        }
    }
}
