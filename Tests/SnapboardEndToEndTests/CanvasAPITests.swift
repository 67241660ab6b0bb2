import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    @Suite("Canvas management over HTTP", .serialized)
    struct CanvasAPITests {
        static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

        @Test("POST creates a canvas with its own grid, snapping and layout; its welcome announces them and taps fit its cells")
        func create() throws {
            let server = try ServerProcess()
            let settings = #"{"id":"plan","width":800,"height":600,"grid":{"x":{"divisions":8},"y":{"pitch":50}},"snapping":{"threshold":6,"release":10},"layout":{"mode":"flexible","rows":2,"columns":4,"padding":8}}"#
            let created = try http(port: server.port, "POST", "/v1/canvases", body: settings)
            #expect(created.status == 201)
            let body = try Self.json(created.body)
            #expect(body["canvas"] == .string("plan") && body["seq"] == .number(0))
            #expect(body["grid"]?["x"]?["divisions"] == .number(8) && body["grid"]?["y"]?["pitch"] == .number(50))
            #expect(body["snapping"]?["threshold"] == .number(6) && body["snapping"]?["release"] == .number(10))
            #expect(body["layout"]?["rows"] == .number(2) && body["layout"]?["columns"] == .number(4))
            // (800 - 2·8 - 3·8) / 4 = 190 wide; (600 - 2·8 - 8) / 2 = 288 high.
            #expect(body["layout"]?["cellWidth"] == .number(190) && body["layout"]?["cellHeight"] == .number(288))
            // The same id again is a conflict; the canvas is unchanged.
            #expect(try http(port: server.port, "POST", "/v1/canvases", body: #"{"id":"plan","width":300}"#).status == 409)
            let client = try TestClient(server.url("plan"))
            let welcome = try #require(client.expect(type: "welcome"))
            #expect(welcome["grid"]?["width"] == .number(800) && welcome["layout"] == body["layout"])
            // A tap in the second cell of the first row fits a dot (square) into that cell, centred.
            client.op("t1", "snap", #""x":300,"y":100"#)
            let delta = try #require(client.expect(type: "delta"))
            let shape = try #require(delta["shapes"]?[0])
            #expect(shape["w"] == .number(190) && shape["h"] == .number(190))
            #expect(shape["x"] == .number(8 + 190 + 8 + 95) && shape["y"] == .number(8 + 144))
            // Without an id the server makes one; with none of the settings the server's defaults hold.
            let generated = try http(port: server.port, "POST", "/v1/canvases", body: "{}")
            #expect(generated.status == 201)
            let id = try #require(try Self.json(generated.body)["canvas"])
            guard case .string(let name) = id else { Issue.record("no id"); return }
            #expect(CanvasAddress.isValidCanvasID(name))
            #expect(try Self.json(generated.body)["grid"]?["width"] == .number(1024))
            #expect(try httpGet(port: server.port, "/v1/canvases/\(name)").status == 200)
            // The id may be the path's instead (a proxy routing by path sees it there); a body's must match.
            #expect(try http(port: server.port, "POST", "/v1/canvases/routed", body: #"{"width":640}"#).status == 201)
            #expect(try http(port: server.port, "POST", "/v1/canvases/routed", body: "{}").status == 409)
            #expect(try http(port: server.port, "POST", "/v1/canvases/other", body: #"{"id":"else"}"#).status == 400)
        }

        @Test("POST refuses bad settings with 400 and a reason, and creates nothing", arguments: [
            #"{"width":-1}"#, #"{"id":"has space"}"#, #"{"layout":{"mode":"spiral","rows":2}}"#,
            #"{"layout":{"mode":"flexible","rows":2}}"#, #"{"grid":{"x":{"pitch":5000}}}"#, #"{"snapping":{"threshold":10,"release":2}}"#,
            #"{"maxShapes":-3}"#, "not json", #"{"width":"wide"}"#, #"[1,2]"#, "",
        ])
        func createRefused(body: String) throws {
            let server = try ServerProcess()
            let answer = try http(port: server.port, "POST", "/v1/canvases", body: body)
            #expect(answer.status == 400)
            let error = try Self.json(answer.body)
            #expect(error["error"] == .string("bad_request"))
            if case .string(let message)? = error["message"] { #expect(!message.isEmpty) } else { Issue.record("no message") }
            #expect(try httpGet(port: server.port, "/v1/canvases").body.contains(#""canvases":[]"#))
        }

        @Test("history pages through the committed ops with who and when; ?at= rebuilds a past state; neither loads the canvas")
        func historyAndPast() throws {
            let server = try ServerProcess(["--idle-unload", "1"])
            let client = try TestClient(server.url("log", "client=ann"))
            for i in 1...5 { client.op("s\(i)", "snap", #""x":\#(i * 100),"y":100"#) }
            #expect(client.pump { $0.all("ack").count == 5 })
            client.op("m1", "move", #""shape":"s1","dx":200,"dy":200"#)
            #expect(client.pump { $0.all("ack").count == 6 })
            client.close()
            try waitFor { try httpGet(port: server.port, "/healthz").body.contains(#""canvases":0"#) }
            let first = try Self.json(try httpGet(port: server.port, "/v1/canvases/log/history?limit=4").body)
            guard case .array(let ops)? = first["ops"] else { Issue.record("no ops"); return }
            #expect(ops.map { $0["seq"] } == [1, 2, 3, 4].map { .number($0) })
            #expect(ops[0]["client"] == .string("c:ann") && ops[0]["opId"] == .string("s1") && ops[0]["op"]?["type"] == .string("create"))
            if case .number(let at)? = ops[0]["at"] { #expect(abs(at - Date().timeIntervalSince1970) < 60) } else { Issue.record("no at") }
            #expect(first["next"] == .number(4) && first["oldest"] == .number(1))
            let rest = try Self.json(try httpGet(port: server.port, "/v1/canvases/log/history?after=4").body)
            #expect(rest["ops"]?[1]?["op"]?["type"] == .string("place") && rest["next"] == .null)
            // The past: after seq 3 three shapes, none moved; at 0 the empty canvas; beyond the last, 404.
            let past = try Self.json(try httpGet(port: server.port, "/v1/canvases/log?at=3").body)
            #expect(past["seq"] == .number(3) && past["shapes"]?[2] != nil && past["shapes"]?[3] == nil)
            let now = try Self.json(try httpGet(port: server.port, "/v1/canvases/log?at=6").body)
            #expect(past["shapes"]?[0]?["x"] != now["shapes"]?[0]?["x"])
            #expect(try Self.json(try httpGet(port: server.port, "/v1/canvases/log?at=0").body)["shapes"] == .array([]))
            #expect(try httpGet(port: server.port, "/v1/canvases/log?at=7").status == 404)
            #expect(try httpGet(port: server.port, "/v1/canvases/log?at=-1").status == 400)
            #expect(try httpGet(port: server.port, "/v1/canvases/log/history?limit=0").status == 400)
            #expect(try httpGet(port: server.port, "/v1/canvases/never/history").status == 404)
            #expect(try httpGet(port: server.port, "/v1/canvases/never?at=0").status == 404)
            // None of those loaded a canvas.
            #expect(try httpGet(port: server.port, "/healthz").body.contains(#""canvases":0"#))
        }

        @Test("?at= before the oldest checkpoint kept is 410 gone; an import starts a history of its own")
        func pastBeyondTheWindow() throws {
            let server = try ServerProcess()
            let client = try TestClient(server.url("short"))
            for i in 1...3 { client.op("s\(i)", "snap", #""x":\#(i * 100),"y":100"#) }
            #expect(client.pump { $0.all("ack").count == 3 })
            let export = try httpGet(port: server.port, "/v1/canvases/short?at=3")
            #expect(export.status == 200)
            let exported = try runServerCommand(["export", "--data", server.dataPath, "--canvas", "short"])
            #expect(exported.status == 0)
            #expect(try http(port: server.port, "PUT", "/v1/canvases/copy", body: exported.output).status == 200)
            #expect(try httpGet(port: server.port, "/v1/canvases/copy?at=3").status == 200)
            let gone = try httpGet(port: server.port, "/v1/canvases/copy?at=2")
            #expect(gone.status == 410 && gone.body.contains(#""error":"gone""#))
            #expect(try Self.json(try httpGet(port: server.port, "/v1/canvases/copy/history").body)["ops"] == .array([]))
        }

        @Test("DELETE closes the canvas's sessions with 4004 and removes it and its log; PUT replaces it and closes with 4005")
        func deleteAndImport() throws {
            let server = try ServerProcess()
            let ann = try TestClient(server.url("doc"))
            for i in 1...2 { ann.op("s\(i)", "snap", #""x":\#(i * 100),"y":100"#) }
            #expect(ann.pump { $0.all("ack").count == 2 })
            let exported = try runServerCommand(["export", "--data", server.dataPath, "--canvas", "doc"])
            // The export over HTTP is the command's, read from the running server.
            let overHTTP = try httpGet(port: server.port, "/v1/canvases/doc/export")
            #expect(overHTTP.status == 200)
            #expect(try Self.json(overHTTP.body) == Self.json(exported.output))
            #expect(try httpGet(port: server.port, "/v1/canvases/nothing/export").status == 404)
            ann.op("s3", "snap", #""x":300,"y":300"#)
            #expect(ann.pump { $0.all("ack").count == 3 })
            // The import rolls the canvas back to two shapes; the session is told to reconnect.
            let imported = try http(port: server.port, "PUT", "/v1/canvases/doc", body: exported.output)
            #expect(imported.status == 200 && imported.body.contains(#""seq":2"#))
            #expect(ann.pump { $0.closed != nil })
            #expect(ann.closed?.code == 4005)
            let bob = try TestClient(server.url("doc"))
            let welcome = try #require(bob.expect(type: "welcome"))
            #expect(welcome["seq"] == .number(2) && welcome["shapes"]?[1] != nil && welcome["shapes"]?[2] == nil)
            // Deleting closes bob with 4004, and the canvas is gone from the store and the listing.
            #expect(try http(port: server.port, "DELETE", "/v1/canvases/doc").status == 204)
            #expect(bob.pump { $0.closed != nil })
            #expect(bob.closed?.code == 4004)
            #expect(try httpGet(port: server.port, "/v1/canvases/doc").status == 404)
            #expect(try httpGet(port: server.port, "/v1/canvases/doc/history").status == 404)
            #expect(try http(port: server.port, "DELETE", "/v1/canvases/doc").status == 404)
            #expect(try httpGet(port: server.port, "/v1/canvases").body.contains(#""canvases":[]"#))
            // A bad export changes nothing.
            #expect(try http(port: server.port, "PUT", "/v1/canvases/doc", body: #"{"id":"doc"}"#).status == 400)
            #expect(try httpGet(port: server.port, "/v1/canvases/doc").status == 404)
        }

        @Test("Wrong methods get 405 with Allow; oversized bodies 413; changes need the admin token once one is set")
        func methodsAndAdmin() throws {
            let server = try ServerProcess(["--auth-secret", AccessTests.secret, "--admin-token", "the-admin-token-of-32-characters-or-more", "--max-request-body", "2048"])
            for (method, path, allow) in [("PATCH", "/v1/canvases/x", "GET, POST, PUT, DELETE"), ("DELETE", "/v1/canvases", "GET, POST"),
                                          ("POST", "/v1/canvases/x/history", "GET"), ("PUT", "/healthz", "GET")] {
                let fd = try connectLoopback(port: server.port, receiveTimeout: 5)
                defer { close(fd) }
                let request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"
                _ = request.withCString { send(fd, $0, strlen($0), 0) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = recv(fd, &buffer, buffer.count, 0)
                let answer = String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).lowercased()
                #expect(answer.hasPrefix("http/1.1 405") && answer.contains("allow: \(allow.lowercased())"), "\(method) \(path)")
            }
            let admin = ["Authorization: Bearer the-admin-token-of-32-characters-or-more"]
            let editor = ["Authorization: Bearer \(try AccessTests.token("x", .editor))"]
            #expect(try http(port: server.port, "POST", "/v1/canvases", body: #"{"id":"x"}"#).status == 401)
            #expect(try http(port: server.port, "POST", "/v1/canvases", body: #"{"id":"x"}"#, headers: editor).status == 401)
            #expect(try http(port: server.port, "POST", "/v1/canvases", body: #"{"id":"x"}"#, headers: admin).status == 201)
            // Reading takes a token for the canvas, not the admin's.
            #expect(try httpGet(port: server.port, "/v1/canvases/x/history", headers: editor).status == 200)
            #expect(try httpGet(port: server.port, "/v1/canvases/x/history").status == 401)
            #expect(try http(port: server.port, "DELETE", "/v1/canvases/x", headers: editor).status == 401)
            let big = "{\"id\":\"y\",\"pad\":\"" + String(repeating: "a", count: 4096) + "\"}"
            let tooBig = try http(port: server.port, "POST", "/v1/canvases", body: big, headers: admin)
            #expect(tooBig.status == 413 && tooBig.body.contains(#""error":"too_large""#))
            // A POST or PUT must say how long its body is (libwebsockets would read one until the peer closes).
            let unsized = try http(port: server.port, "PUT", "/v1/canvases/x", headers: admin)
            #expect(unsized.status == 411 && unsized.body.contains(#""error":"length_required""#))
            #expect(try http(port: server.port, "DELETE", "/v1/canvases/x", headers: admin).status == 204)
            // A server that requires tokens but has no admin token takes no changes at all.
            let closed = try ServerProcess(["--auth-secret", AccessTests.secret])
            #expect(try http(port: closed.port, "POST", "/v1/canvases", body: "{}", headers: editor).status == 401)
        }

        @Test("schemathesis finds nothing against a live server with Protocol/openapi.yaml, and the server stays healthy")
        func schemathesis() throws {
            let server = try ServerProcess()
            let config = packageRoot.appendingPathComponent("Tests/Schemathesis/schemathesis.toml").path
            let spec = packageRoot.appendingPathComponent("Protocol/openapi.yaml").path
            // A fixed seed, so a failure here is one anyone can replay (`make schemathesis` runs longer, unseeded).
            let run = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), [
                "python3", "-m", "schemathesis.cli", "--config-file", config, "run", spec, "--url", "http://127.0.0.1:\(server.port)",
                "--max-examples", "40", "--seed", "20261124", "--no-color",
            ], withErrors: true)
            #expect(run.status == 0, "\(run.output.suffix(4000))")
            #expect(run.output.contains("passed"))
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
        }
    }
}
