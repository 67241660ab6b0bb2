import Foundation
import SnapboardLWSClient
import SnapboardLoad
import SnapboardLock
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    /// 10,000 random and mutated messages from 20 clients at once. The server stays up, answers
    /// each as documented, its memory stays put, and two well-behaved editors working meanwhile see their
    /// canvas exactly as they made it.
    @Suite("Abuse: 10,000 random and mutated messages from 20 clients", .serialized)
    struct AbuseTests {
        /// What a message is, and so what its documented answer is.
        enum Kind: CaseIterable {
            /// A well-formed op: an `ack` or a `reject` with its id (on the editors' canvas, a viewer's op
            /// is `forbidden`).
            case op
            /// Not JSON, in plain ASCII: `error` `bad_json`.
            case garbage
            /// Nesting deeper than 32: `error` `bad_json`.
            case deep
            /// A binary frame: `error` `binary_frame`.
            case binary
            /// An op with one byte changed, dropped or doubled: whatever it now is, one answer at most and
            /// never a crash (checked with a ping behind it).
            case mutated
            /// Over `--max-message-bytes`: `error` `too_large`, then close 1009 (1008 when it is one error too many).
            case oversized
            /// A text frame that is not UTF-8: close 1007.
            case notUTF8
        }

        /// A small deterministic generator (SplitMix64), so a failure can be rerun with its seed.
        struct Generator {
            var state: UInt64
            mutating func next() -> UInt64 {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return z ^ (z >> 31)
            }
            mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        }

        static func op(_ id: String, _ g: inout Generator) -> String {
            let x = g.below(1100) - 40, y = g.below(850) - 40
            switch g.below(5) {
            case 0: return #"{"type":"op","id":"\#(id)","op":"snap","x":\#(x),"y":\#(y)}"#
            case 1: return #"{"type":"op","id":"\#(id)","op":"move","shape":"s\#(g.below(8))","dx":\#(x / 10),"dy":\#(y / 10)}"#
            case 2: return #"{"type":"op","id":"\#(id)","op":"scale","shape":"s\#(g.below(8))","factor":\#(Double(g.below(40)) / 10)}"#
            case 3: return #"{"type":"op","id":"\#(id)","op":"rotate","shape":"s\#(g.below(8))","radians":\#(Double(g.below(70)) / 10 - 3)}"#
            default: return #"{"type":"op","id":"\#(id)","op":"delete","shapes":["s\#(g.below(8))"]}"#
            }
        }

        /// One attacker: `count` messages, reconnecting whenever a limit closed it. Returns the problems.
        static func attack(server: ServerProcess, canvas: String, query: String, count: Int, seed: UInt64,
                           maxMessageBytes: Int, uncoded: Locked<Int>) -> [String] {
            var g = Generator(state: seed)
            var problems: [String] = []
            var client: TestClient?
            var sent = 0
            var previous = Kind.op
            while sent < count {
                if client == nil || client?.closed != nil { client = try? TestClient(server.url(canvas, query)) }
                guard let c = client else {
                    problems.append("cannot connect after \(sent) messages")
                    break
                }
                let id = "m\(seed)-\(sent)"
                let kind = Kind.allCases[g.below(Kind.allCases.count)]
                defer { previous = kind }
                sent += 1
                switch kind {
                case .op:
                    c.send(op(id, &g))
                    let answer = c.next { $0["id"] == .string(id) && ($0["type"] == .string("ack") || $0["type"] == .string("reject")) }
                    if answer == nil, c.closed == nil { problems.append("\(id): no ack or reject") }
                    if query.contains("viewer"), let answer, answer["code"] != .string("forbidden") { problems.append("\(id): a viewer's op was \(answer)") }
                case .garbage, .deep, .binary:
                    let bytes: [UInt8]
                    switch kind {
                    case .garbage: bytes = (0..<(1 + g.below(200))).map { _ in UInt8(32 + g.below(95)) }
                    case .deep: bytes = Array((String(repeating: "[", count: 33 + g.below(100)) + "1" + String(repeating: "]", count: 33)).utf8)
                    default: bytes = Array(op(id, &g).utf8)
                    }
                    // Garbage can be JSON by chance (a bare number): then it is a bad message, not bad JSON.
                    c.socket.send(bytes, binary: kind == .binary)
                    let codes: [JSONValue] = kind == .binary ? [.string("binary_frame")] : [.string("bad_json"), .string("bad_message")]
                    let error = c.next { $0["type"] == .string("error") }
                    if error == nil, c.closed == nil { problems.append("\(id) (\(kind)): no error") }
                    if let error, !codes.contains(error["code"] ?? .null) { problems.append("\(id) (\(kind)): \(error)") }
                case .mutated:
                    var bytes = Array(op(id, &g).utf8)
                    let at = g.below(bytes.count)
                    switch g.below(3) {
                    case 0: bytes[at] = UInt8(32 + g.below(95))
                    case 1: bytes.remove(at: at)
                    default: bytes.insert(bytes[at], at: at)
                    }
                    c.socket.send(bytes)
                    c.send(#"{"type":"ping","t":\#(sent)}"#)
                    if c.next(timeout: 5, { $0["type"] == .string("pong") && $0["t"] == .number(Double(sent)) }) == nil, c.closed == nil {
                        problems.append("\(id): no pong behind a mutated message")
                    }
                case .oversized:
                    c.send(#"{"type":"op","id":"\#(id)","op":"snap","x":1,"y":1,"pad":""# + String(repeating: "x", count: maxMessageBytes) + #""}"#)
                    if c.next(timeout: 5, { $0["type"] == .string("error") })?["code"] != .string("too_large"), c.closed == nil { problems.append("\(id): no too_large") }
                    c.pump(timeout: 5) { $0.closed != nil }
                    // 1009, or 1008 when this error was the one too many (P10's budget of 20 in 10 s).
                    if c.closed?.code != 1009, c.closed?.code != 1008 { problems.append("\(id): closed with \(String(describing: c.closed)) after too_large") }
                case .notUTF8:
                    c.socket.send(Array(#"{"type":"ping","t":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8))
                    c.pump(timeout: 5) { $0.closed != nil }
                    // libwebsockets closes with 1007 itself; with a frame of ours still half written (a big
                    // welcome on a new connection) it drops the close frame and only closes the socket. When
                    // a message before it was the error one too many (P10's budget of 20 in 10 s: garbage, a
                    // mutated message, or a viewer's refused op), the server has already closed with 1008, as
                    // after an oversized message.
                    switch c.closed?.code {
                    case 1007?: break
                    case 1008?: break
                    case nil where c.closed != nil: uncoded.withLock { $0 += 1 }
                    default: problems.append("\(id): closed with \(String(describing: c.closed)) for invalid UTF-8 after \(previous)")
                    }
                }
            }
            client?.close()
            return problems
        }

        @Test("The server stays up and answers each as documented; RSS within 20 MB; the editors' canvas is exactly theirs")
        func storm() throws {
            let maxMessageBytes = 8192
            let server = try ServerProcess(["--max-message-bytes", "\(maxMessageBytes)", "--ops-per-second", "100000",
                                            "--max-connections-per-ip", "1000"])
            // Two editors on the calm canvas, working while the storm runs.
            let ann = try TestClient(server.url("calm", "name=ann")), ben = try TestClient(server.url("calm", "name=ben"))
            _ = (ann.expect(type: "welcome"), ben.expect(type: "welcome"))
            let rssBefore = server.sampler.rssMB() ?? 0
            let seed = UInt64(Date().timeIntervalSince1970)
            print("AbuseTests seed \(seed)")
            let attackers = 20, perAttacker = 500
            let problems = Locked<[String]>([])
            let uncoded = Locked(0)
            let done = DispatchGroup()
            for i in 0..<attackers {
                done.enter()
                Thread.detachNewThread {
                    // Half of them on the editors' canvas as viewers, half as editors of canvases of their own.
                    let (canvas, query) = i % 2 == 0 ? ("calm", "role=viewer") : ("noise-\(i)", "")
                    let found = Self.attack(server: server, canvas: canvas, query: query, count: perAttacker, seed: seed &+ UInt64(i),
                                            maxMessageBytes: maxMessageBytes, uncoded: uncoded)
                    problems.withLock { $0 += found }
                    done.leave()
                }
            }
            // Meanwhile: ann snaps 20 shapes on a line, ben drags every other one 64 units down.
            for n in 0..<20 { ann.op("a\(n)", "snap", #""x":\#(48 + 48 * n),"y":96,"shapeId":"k\#(n)""#) }
            for n in 0..<20 { _ = ann.expect(type: "ack") { $0["id"] == .string("a\(n)") } }
            for n in stride(from: 0, to: 20, by: 2) {
                ben.op("b\(n)", "move", #""shape":"k\#(n)","dx":0,"dy":64"#)
                _ = ben.expect(type: "ack") { $0["id"] == .string("b\(n)") }
            }
            #expect(done.wait(timeout: .now() + 600) == .success, "the attackers finished")
            let found = problems.withLock { $0 }
            print("AbuseTests: \(uncoded.withLock { $0 }) UTF-8 closes came without their close frame")
            #expect(found.isEmpty, "\(found.count) problems, first: \(found.prefix(5))")
            #expect(server.isRunning)
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
            // The editors' canvas is exactly theirs: 20 shapes, every other one 64 units down, 30 commits.
            let body = try httpGet(port: server.port, "/v1/canvases/calm").body
            let shapes = try Replica.shapes(ofSnapshot: body)
            #expect(shapes.count == 20)
            for n in 0..<20 {
                #expect(shapes["k\(n)"]?["y"] == .number(n % 2 == 0 ? 160 : 96), "k\(n)")
            }
            #expect(try JSONValue.parse(Array(body.utf8))["seq"] == .number(30))
            // Memory: what the storm left behind, once its canvases are unloaded and its connections gone.
            let rssAfter = server.sampler.rssMB() ?? 0
            print("AbuseTests RSS \(rssBefore) MB before, \(rssAfter) MB after")
            // Under a sanitizer, RSS measures its quarantine and shadow memory instead.
            if !underSanitizer { #expect(rssAfter - rssBefore < 20, "RSS went from \(rssBefore) to \(rssAfter) MB") }
        }
    }
}
