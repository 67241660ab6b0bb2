import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

/// One hostile or broken frame and the answer PROTOCOL.md promises for it.
struct BadInput: CustomStringConvertible, Sendable {
    var name: String
    var bytes: [UInt8]
    var binary = false
    var fragments = 1
    /// `error` or `reject`.
    var answer: String
    var code: String

    var description: String { name }

    static func text(_ name: String, _ text: String, _ answer: String, _ code: String) -> BadInput {
        BadInput(name: name, bytes: Array(text.utf8), answer: answer, code: code)
    }

    static func op(_ name: String, _ fields: String, _ answer: String, _ code: String) -> BadInput {
        text(name, #"{"type":"op","id":"bad","#+fields+"}", answer, code)
    }
}

extension EndToEnd {
    @Suite("[P7][P10] Bad input: answered as documented, canvas unchanged, server up", .serialized)
    struct BadInputTests {
        static let errors: [BadInput] = [
            .text("truncated JSON", #"{"type":"op""#, "error", "bad_json"),
            .text("not JSON at all", "drag the box", "error", "bad_json"),
            .text("an array", "[1,2]", "error", "bad_message"),
            .text("a bare string", #""op""#, "error", "bad_message"),
            .text("no type", "{}", "error", "bad_message"),
            .text("a numeric type", #"{"type":5}"#, "error", "bad_message"),
            .text("an unknown type", #"{"type":"hello"}"#, "error", "unknown_type"),
            .text("an op without id", #"{"type":"op","op":"clear"}"#, "error", "bad_message"),
            .text("a numeric op id", #"{"type":"op","id":7,"op":"clear"}"#, "error", "bad_message"),
            .text("a 65-character op id", #"{"type":"op","op":"clear","id":""#+String(repeating: "x", count: 65)+#""}"#, "error", "bad_message"),
            .op("an unknown op", #""op":"explode""#, "error", "unknown_op"),
            .op("x as a string", #""op":"snap","x":"10","y":10"#, "error", "bad_message"),
            .op("a missing y", #""op":"snap","x":10"#, "error", "bad_message"),
            .op("x as a boolean", #""op":"snap","x":true,"y":10"#, "error", "bad_message"),
            .op("NaN, which JSON cannot say", #""op":"snap","x":NaN,"y":10"#, "error", "bad_json"),
            .op("shape as a string", #""op":"snap","x":10,"y":10,"shape":"dot""#, "error", "bad_message"),
            .op("an unknown phase", #""op":"move","shape":"s","phase":"middle""#, "error", "bad_message"),
            .op("ax without ay", #""op":"scale","shape":"s","ax":1"#, "error", "bad_message"),
            // One level past P10's 32, inside an op (the first level is the message itself).
            .text("an op nesting 33 deep", #"{"type":"op","id":"n","op":"snap","x":10,"y":10,"shape":"# + String(repeating: #"{"a":"#, count: 32)
                  + "1" + String(repeating: "}", count: 33), "error", "bad_json"),
        ]

        static let more: [BadInput] = [
            .text("a duplicate key", #"{"type":"op","type":"ping"}"#, "error", "bad_json"),
            BadInput(name: "a binary frame", bytes: Array(#"{"type":"ping"}"#.utf8), binary: true, answer: "error", code: "binary_frame"),
            .op("a number beyond a double", #""op":"snap","x":1e400,"y":10"#, "reject", "not_finite"),
            .op("a negative tap", #""op":"snap","x":-3,"y":10"#, "reject", "out_of_bounds"),
            .op("a tap past the canvas", #""op":"snap","x":10,"y":99999"#, "reject", "out_of_bounds"),
            .op("an unknown kind", #""op":"snap","x":10,"y":10,"shape":{"kind":"hexagram"}"#, "reject", "bad_shape"),
            .op("99 sides", #""op":"snap","x":10,"y":10,"shape":{"kind":"polygon","sides":99}"#, "reject", "bad_shape"),
            .op("a huge width", #""op":"snap","x":10,"y":10,"shape":{"kind":"oval","w":1e9}"#, "reject", "bad_shape"),
            .op("a hue of 2", #""op":"snap","x":10,"y":10,"shape":{"fill":{"h":2,"s":1,"b":1,"a":1}}"#, "reject", "bad_shape"),
            .op("a malformed shape id", #""op":"snap","x":10,"y":10,"shapeId":"no spaces""#, "reject", "bad_shape_id"),
            .op("a taken shape id", #""op":"snap","x":10,"y":10,"shapeId":"s""#, "reject", "bad_shape_id"),
            .op("a move of a missing shape", #""op":"move","shape":"ghost","dx":1,"dy":1"#, "reject", "unknown_shape"),
            .op("an update without begin", #""op":"move","shape":"s","phase":"update","dx":1,"dy":1"#, "reject", "no_gesture"),
            .op("a negative factor", #""op":"scale","shape":"s","factor":-1"#, "reject", "out_of_range"),
            .op("an anchor off the canvas", #""op":"scale","shape":"s","factor":2,"ax":-500,"ay":1"#, "reject", "out_of_bounds"),
            .op("a huge rotation", #""op":"rotate","shape":"s","radians":1e12"#, "reject", "out_of_range"),
        ]

        /// Sends each input on one connection and checks the answer, the canvas and the server after each.
        func run(_ inputs: [BadInput], server: ServerProcess, canvas: String) throws {
            let client = try TestClient(server.url(canvas))
            client.op("setup", "snap", #""x":500,"y":400,"shapeId":"s""#)
            _ = client.expect(type: "ack")
            let before = try httpGet(port: server.port, "/v1/canvases/\(canvas)").body
            for input in inputs {
                client.socket.send(input.bytes, binary: input.binary, fragments: input.fragments)
                let answer = client.expect(type: input.answer)
                #expect(answer?["code"] == .string(input.code), "\(input.name): \(String(describing: answer))")
                #expect(try httpGet(port: server.port, "/v1/canvases/\(canvas)").body == before, "\(input.name) changed the canvas")
            }
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
            client.send(#"{"type":"ping","t":1}"#)
            #expect(client.expect(type: "pong") != nil, "the connection stays open")
        }

        @Test("Malformed frames get an error with their code; the connection stays open")
        func malformed() throws {
            let server = try ServerProcess()
            try run(Self.errors, server: server, canvas: "bad-1")
        }

        @Test("Refused ops get a reject with their code; undecodable frames an error")
        func refused() throws {
            let server = try ServerProcess()
            try run(Self.more, server: server, canvas: "bad-2")
            #expect(Self.errors.count + Self.more.count >= 25)
        }

        @Test("A fragmented message is reassembled and applied")
        func fragmented() throws {
            let server = try ServerProcess()
            let client = try TestClient(server.url("frag"))
            client.socket.send(Array(#"{"type":"op","id":"f1","op":"snap","x":100,"y":100,"shape":{"kind":"star"}}"#.utf8), fragments: 5)
            #expect(client.expect(type: "ack")?["seq"] == .number(1))
        }

        @Test("An oversized message, whole or in fragments, gets too_large and a 1009 close; the server stays up", arguments: [1, 8])
        func oversized(fragments: Int) throws {
            let server = try ServerProcess(["--max-message-bytes", "4096"])
            let bystander = try TestClient(server.url("big"))
            let client = try TestClient(server.url("big"))
            let big = #"{"type":"op","id":"big","op":"snap","x":1,"y":1,"pad":""# + String(repeating: "x", count: 8000) + #""}"#
            client.socket.send(Array(big.utf8), fragments: fragments)
            #expect(client.expect(type: "error")?["code"] == .string("too_large"))
            client.pump(timeout: 3) { $0.closed != nil }
            #expect(client.closed?.code == 1009)
            bystander.op("ok", "snap", #""x":10,"y":10"#)
            #expect(bystander.expect(type: "ack")?["seq"] == .number(1))
        }

        @Test("A text frame that is not UTF-8 closes the connection with 1007 (RFC 6455 §8.1); the canvas is unchanged")
        func invalidUTF8() throws {
            let server = try ServerProcess()
            let client = try TestClient(server.url("utf8"))
            client.op("setup", "snap", #""x":500,"y":400,"shapeId":"s""#)
            _ = client.expect(type: "ack")
            func canvas() throws -> (JSONValue?, JSONValue?) {
                let body = try JSONValue.parse(Array(try httpGet(port: server.port, "/v1/canvases/utf8").body.utf8))
                return (body["seq"], body["shapes"])
            }
            let before = try canvas()
            client.socket.send(Array(#"{"type":"op","id":""#.utf8) + [0xC3, 0x28] + Array(#"","op":"clear"}"#.utf8))
            client.pump(timeout: 3) { $0.closed != nil }
            #expect(client.closed?.code == 1007)
            let after = try canvas()
            #expect(after.0 == before.0 && after.1 == before.1)
        }

        @Test("A client that keeps sending junk is closed with 1008")
        func misbehaving() throws {
            let server = try ServerProcess()
            let client = try TestClient(server.url("junk"))
            for _ in 0..<25 { client.send("junk") }
            client.pump(timeout: 3) { $0.closed != nil }
            #expect(client.closed?.code == 1008)
            #expect(client.all("error").count >= 20)
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
        }
    }
}
