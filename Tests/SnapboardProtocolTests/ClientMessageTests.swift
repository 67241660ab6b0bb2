import Foundation
import Testing

@testable import SnapboardCore
@testable import SnapboardProtocol

@Suite("Client messages")
struct ClientMessageTests {
    func decode(_ text: String) throws(ProtocolError) -> ClientMessage { try ClientMessage.decode(Array(text.utf8)) }

    @Test("Every op kind decodes, with defaults for what is left out")
    func decodesOps() throws {
        #expect(try decode(#"{"type":"op","id":"1","op":"snap","x":10,"y":20}"#) == .op(id: "1", .snap(at: Point(x: 10, y: 20), shapeID: nil, spec: ShapeSpec())))
        var spec = ShapeSpec(kind: "star")
        (spec.width, spec.height, spec.points, spec.innerRatio, spec.hatch) = (50, 60, 7, 0.5, .crossHatch)
        spec.fill = HSBColor(h: 0.1, s: 0.2, b: 0.3, a: 0.4)
        #expect(try decode(#"{"type":"op","id":"2","op":"snap","x":1,"y":2,"shapeId":"s","shape":{"kind":"star","w":50,"h":60,"points":7,"inner":0.5,"hatch":"crossHatch","fill":{"h":0.1,"s":0.2,"b":0.3,"a":0.4}}}"#)
                == .op(id: "2", .snap(at: Point(x: 1, y: 2), shapeID: "s", spec: spec)))
        #expect(try decode(#"{"type":"op","id":"3","op":"move","shape":"a","phase":"begin"}"#) == .op(id: "3", .move("a", phase: .begin, translation: .zero)))
        #expect(try decode(#"{"type":"op","id":"4","op":"scale","shape":"a","factor":2,"ax":5,"ay":6}"#) == .op(id: "4", .scale("a", phase: nil, factor: 2, anchor: Point(x: 5, y: 6))))
        #expect(try decode(#"{"type":"op","id":"5","op":"rotate","shape":"a","phase":"end","radians":1.5}"#) == .op(id: "5", .rotate("a", phase: .end, radians: 1.5)))
        #expect(try decode(#"{"type":"op","id":"6","op":"clear"}"#) == .op(id: "6", .clear))
        #expect(try decode(#"{"type":"op","id":"7","op":"delete","shapes":["a","b"]}"#) == .op(id: "7", .delete(["a", "b"])))
        #expect(try decode(#"{"type":"op","id":"8","op":"undo"}"#) == .op(id: "8", .undo))
        #expect(try decode(#"{"type":"op","id":"9","op":"redo"}"#) == .op(id: "9", .redo))
        #expect(try decode(#"{"type":"op","id":"10","op":"order","shapes":["a","b"],"to":"backward"}"#) == .op(id: "10", .order(["a", "b"], to: .backward)))
        #expect(try decode(#"{"type":"op","id":"11","op":"lock","shapes":["a"],"locked":false}"#) == .op(id: "11", .lock(["a"], locked: false)))
        #expect(try decode(#"{"type":"ping","t":12.5}"#) == .ping(t: .number(12.5)))
        #expect(try decode(#"{"type":"op","id":"12","op":"duplicate","shapes":["a","b"]}"#) == .op(id: "12", .duplicate(["a", "b"], ids: nil)))
        #expect(try decode(#"{"type":"op","id":"12","op":"duplicate","shapes":["a"],"ids":["a2"]}"#) == .op(id: "12", .duplicate(["a"], ids: ["a2"])))
        #expect(try decode(#"{"type":"op","id":"13","op":"group","shapes":["a","b"]}"#) == .op(id: "13", .group(["a", "b"])))
        #expect(try decode(#"{"type":"op","id":"14","op":"ungroup","shapes":["a"]}"#) == .op(id: "14", .ungroup(["a"])))
        #expect(try decode(#"{"type":"op","id":"15","op":"connect","from":{"x":1,"y":2},"to":{"shape":"b","anchor":"left"}}"#)
                == .op(id: "15", .connect(shapeID: nil, spec: ShapeSpec(kind: "arrow"), from: .at(Point(x: 1, y: 2)),
                                          to: .bound(Binding(shape: "b", anchor: .left)))))
        var line = ShapeSpec(kind: "line")
        line.style.stroke = 0xE03131
        #expect(try decode(#"{"type":"op","id":"16","op":"connect","shapeId":"c","shape":{"kind":"line","stroke":"red"},"from":{"shape":"a","u":0.25,"v":-0.5},"to":{"x":3,"y":4}}"#)
                == .op(id: "16", .connect(shapeID: "c", spec: line, from: .bound(Binding(shape: "a", anchor: .point(u: 0.25, v: -0.5))),
                                          to: .at(Point(x: 3, y: 4)))))
        #expect(try decode(#"{"type":"op","id":"17","op":"endpoint","shape":"c","end":"to","phase":"update","dx":5,"dy":-6}"#)
                == .op(id: "17", .endpoint("c", end: .to, phase: .update, translation: Point(x: 5, y: -6))))
        #expect(try decode(#"{"type":"op","id":"18","op":"move","shapes":["a","b"],"phase":"update","dx":3,"dy":4}"#)
                == .op(id: "18", .moveMany(["a", "b"], phase: .update, translation: Point(x: 3, y: 4))))
        #expect(try decode(#"{"type":"op","id":"19","op":"scale","shapes":["a","b"],"factor":2,"ax":1,"ay":2,"radians":0.5}"#)
                == .op(id: "19", .scaleMany(["a", "b"], phase: nil, factor: 2, anchor: Point(x: 1, y: 2), radians: 0.5)))
        #expect(try decode(#"{"type":"op","id":"20","op":"rotate","shapes":["a","b"],"phase":"end","radians":1}"#)
                == .op(id: "20", .rotateMany(["a", "b"], phase: .end, radians: 1)))
    }

    @Test("Malformed messages get their documented code", arguments: [
        ("{", ProtocolError.Code.badJSON), ("[1,2]", .badMessage), ("\"op\"", .badMessage), (#"{"type":5}"#, .badMessage),
        (#"{"type":"hello"}"#, .unknownType), (#"{"type":"op","op":"snap","x":1,"y":1}"#, .badMessage),
        (#"{"type":"op","id":"","op":"clear"}"#, .badMessage), (#"{"type":"op","id":7,"op":"clear"}"#, .badMessage),
        (#"{"type":"op","id":"a","op":"explode"}"#, .unknownOp), (#"{"type":"op","id":"a","op":"snap","x":"1","y":1}"#, .badMessage),
        (#"{"type":"op","id":"a","op":"snap","x":true,"y":1}"#, .badMessage), (#"{"type":"op","id":"a","op":"snap","y":1}"#, .badMessage),
        (#"{"type":"op","id":"a","op":"move","shape":5}"#, .badMessage), (#"{"type":"op","id":"a","op":"move","shape":"s","phase":"middle"}"#, .badMessage),
        (#"{"type":"op","id":"a","op":"scale","shape":"s","ax":1}"#, .badMessage), (#"{"type":"op","id":"a","op":"snap","x":1,"y":1,"shape":"dot"}"#, .badMessage),
        (#"{"type":"op","id":"a","op":"snap","x":1,"y":1,"shape":{"sides":3.5}}"#, .badMessage),
        (#"{"type":"op","id":"a","op":"snap","x":1,"y":1,"shape":{"hatch":"dots"}}"#, .badMessage),
        (#"{"type":"op","id":"a","op":"delete"}"#, .badMessage), (#"{"type":"op","id":"a","op":"delete","shapes":[]}"#, .badMessage),
        (#"{"type":"op","id":"a","op":"delete","shapes":"a"}"#, .badMessage), (#"{"type":"op","id":"a","op":"delete","shapes":["a",1]}"#, .badMessage),
        (#"{"type":"op","id":"a","op":"delete","shapes":["# + Array(repeating: #""a""#, count: 1_001).joined(separator: ",") + "]}", .badMessage),
    ])
    func malformed(text: String, code: ProtocolError.Code) {
        do {
            _ = try decode(text)
            Issue.record("expected \(code)")
        } catch {
            #expect(error.code == code, "\(text)")
        }
    }

    static let malformedOrdersAndLocks: [String] = [
        #"{"type":"op","id":"a","op":"order","shapes":["a"]}"#,
        #"{"type":"op","id":"a","op":"order","shapes":["a"],"to":"up"}"#,
        #"{"type":"op","id":"a","op":"order","shapes":["a"],"to":1}"#,
        #"{"type":"op","id":"a","op":"order","shapes":["a"],"to":"Front"}"#,
        #"{"type":"op","id":"a","op":"order","to":"front"}"#,
        #"{"type":"op","id":"a","op":"order","shapes":[],"to":"front"}"#,
        #"{"type":"op","id":"a","op":"order","shapes":[1],"to":"front"}"#,
        #"{"type":"op","id":"a","op":"order","shapes":"a","to":"back"}"#,
        #"{"type":"op","id":"a","op":"order","to":"front","shapes":["# + Array(repeating: #""a""#, count: 1_001).joined(separator: ",") + "]}",
        #"{"type":"op","id":"a","op":"lock","shapes":["a"]}"#,
        #"{"type":"op","id":"a","op":"lock","shapes":["a"],"locked":"true"}"#,
        #"{"type":"op","id":"a","op":"lock","shapes":["a"],"locked":1}"#,
        #"{"type":"op","id":"a","op":"lock","shapes":["a"],"locked":null}"#,
        #"{"type":"op","id":"a","op":"lock","shapes":[],"locked":true}"#,
        #"{"type":"op","id":"a","op":"lock","shapes":[null],"locked":true}"#,
        #"{"type":"op","id":"a","op":"lock","locked":true,"shapes":["# + Array(repeating: #""a""#, count: 1_001).joined(separator: ",") + "]}",
    ]

    static let malformedSelections = [
        #"{"type":"op","id":"a","op":"group"}"#,
        #"{"type":"op","id":"a","op":"group","shapes":[]}"#,
        #"{"type":"op","id":"a","op":"ungroup","shapes":"a"}"#,
        #"{"type":"op","id":"a","op":"ungroup","shapes":[7]}"#,
        #"{"type":"op","id":"a","op":"duplicate","shapes":["a"],"ids":"a2"}"#,
        #"{"type":"op","id":"a","op":"duplicate","shapes":["a"],"ids":[1]}"#,
        #"{"type":"op","id":"a","op":"duplicate","shapes":["a"],"ids":[null]}"#,
        #"{"type":"op","id":"a","op":"duplicate","ids":["a2"]}"#,
        #"{"type":"op","id":"a","op":"duplicate","shapes":["a"],"ids":["# + Array(repeating: #""b""#, count: 1_001).joined(separator: ",") + "]}",
        #"{"type":"op","id":"a","op":"group","shapes":["# + Array(repeating: #""a""#, count: 1_001).joined(separator: ",") + "]}",
        #"{"type":"op","id":"a","op":"connect","from":{"x":1,"y":2}}"#,
        #"{"type":"op","id":"a","op":"connect","from":{"x":1},"to":{"x":1,"y":2}}"#,
        #"{"type":"op","id":"a","op":"connect","from":[1,2],"to":{"x":1,"y":2}}"#,
        #"{"type":"op","id":"a","op":"connect","from":{"shape":"s","anchor":"middle"},"to":{"x":1,"y":2}}"#,
        #"{"type":"op","id":"a","op":"connect","from":{"shape":"s"},"to":{"x":1,"y":2}}"#,
        #"{"type":"op","id":"a","op":"connect","from":{"shape":7,"anchor":"top"},"to":{"x":1,"y":2}}"#,
        #"{"type":"op","id":"a","op":"endpoint","shape":"c","end":"middle"}"#,
        #"{"type":"op","id":"a","op":"endpoint","shape":"c"}"#,
        #"{"type":"op","id":"a","op":"endpoint","end":"to"}"#,
        #"{"type":"op","id":"a","op":"move","shapes":["a","b"],"shape":"a","dx":1}"#,
        #"{"type":"op","id":"a","op":"move","shapes":[],"dx":1}"#,
        #"{"type":"op","id":"a","op":"rotate","shapes":"a","radians":1}"#,
        #"{"type":"op","id":"a","op":"scale","shapes":[1,2],"factor":2}"#,
    ]

    @Test("[P13, P27, P28] A malformed group, ungroup, duplicate, connect or endpoint is bad_message: shapes not 1–1,000 strings, ids not up to 1,000 strings, an end that is neither a point nor a shape and anchor, an unknown end",
          arguments: malformedSelections)
    func malformedSelection(text: String) {
        do {
            _ = try decode(text)
            Issue.record("expected bad_message: \(text)")
        } catch {
            #expect(error.code == .badMessage && error.id == "a", "\(text)")
        }
    }

    @Test("[P13, P25] A malformed order or lock is bad_message: a missing or unknown to, a locked that is not a boolean, shapes not 1–1,000 strings",
          arguments: malformedOrdersAndLocks)
    func malformedOrderOrLock(text: String) {
        do {
            _ = try decode(text)
            Issue.record("expected bad_message: \(text)")
        } catch {
            #expect(error.code == .badMessage && error.id == "a", "\(text)")
        }
    }

    @Test("An op id longer than 64 characters is refused")
    func longID() {
        #expect(throws: ProtocolError.self) { try decode(#"{"type":"op","op":"clear","id":""# + String(repeating: "x", count: 65) + #""}"#) }
    }

    @Test("Canvas paths route to the canvas, 400 or 404", arguments: [
        ("/v1/canvases/demo", "client=c1&since=5&name=Ann%20B&zoom=2", true),
        ("/v1/canvases/bad id", nil, false), ("/v1/canvases/", nil, false), ("/v1/canvases/ok", "since=-1", false),
        ("/v1/canvases/ok", "zoom=0", false), ("/v1/canvases/ok", "name=%zz", false),
    ])
    func routes(path: String, query: String?, ok: Bool) {
        switch CanvasAddress.route(path: path, query: query) {
        case .canvas(let address):
            #expect(ok)
            if query?.hasPrefix("client") == true {
                #expect(address == CanvasAddress(canvas: "demo", client: "c1", since: 5, name: "Ann B", zoom: 2))
            }
        case .badRequest: #expect(!ok)
        case .notFound: Issue.record("not found")
        }
        #expect(CanvasAddress.route(path: "/v2/canvases/x", query: nil) == .notFound)
        #expect(CanvasAddress.route(path: "/healthz", query: nil) == .notFound)
    }

    @Test("Arguments libwebsockets already decoded are never decoded again; NUL and over-long values are refused")
    func decodedArguments() {
        func route(_ arguments: [String]) -> CanvasAddress.Route { CanvasAddress.route(path: "/v1/canvases/d", decodedArguments: arguments) }
        // The client sent role=vie%2577er: one decoding gives vie%77er, which is no role.
        guard case .badRequest = route(["role=vie%77er"]) else { Issue.record("decoded twice"); return }
        guard case .canvas(let address) = route(["name=50%+off&x", "role=viewer", "token=a.b.c"]) else { Issue.record("refused"); return }
        #expect(address.name == "50%+off&x" && address.role == "viewer" && address.token == "a.b.c")
        guard case .badRequest = route(["name=a\u{0}b"]) else { Issue.record("NUL taken"); return }
        guard case .badRequest = route(["name=" + String(repeating: "n", count: CanvasAddress.maxValueBytes + 1)]) else {
            Issue.record("long value taken")
            return
        }
    }
}

@Suite("Client messages: one writer")
struct ClientMessageEncodeTests {
    static var messages: [ClientMessage] {
        var spec = ShapeSpec(kind: "star")
        (spec.width, spec.height, spec.points, spec.innerRatio, spec.hatch) = (50, 60, 7, 0.5, .crossHatch)
        spec.fill = HSBColor(h: 0.1, s: 0.2, b: 0.3, a: 0.4)
        var polygon = ShapeSpec(kind: "polygon")
        (polygon.sides, polygon.depth) = (6, 2)
        return [
            .op(id: "1", .snap(at: Point(x: 10, y: 20.5), shapeID: nil, spec: ShapeSpec())),
            .op(id: "2", .snap(at: Point(x: 1, y: 2), shapeID: "s", spec: spec)),
            .op(id: "2b", .snap(at: Point(x: 1, y: 2), shapeID: nil, spec: polygon)),
            .op(id: "3", .move("a", phase: .begin, translation: .zero)),
            .op(id: "4", .scale("a", phase: nil, factor: 2, anchor: Point(x: 5, y: 6))),
            .op(id: "4b", .scale("a", phase: .update, factor: 0.75, anchor: nil)),
            .op(id: "5", .rotate("a", phase: .end, radians: -1.5)),
            .op(id: "6 \"quoted\"", .clear),
            .op(id: "7", .delete(["a", "b-2"])), .op(id: "8", .undo), .op(id: "9", .redo),
            .op(id: "10", .order(["a", "b"], to: .front)), .op(id: "10b", .order(["a"], to: .forward)),
            .op(id: "11", .lock(["a", "b"], locked: true)), .op(id: "11b", .lock(["a"], locked: false)),
            .op(id: "12", .duplicate(["a", "b"], ids: nil)), .op(id: "12b", .duplicate(["a"], ids: ["a-copy"])),
            .op(id: "13", .group(["a", "b"])), .op(id: "14", .ungroup(["a"])),
            .op(id: "15", .connect(shapeID: "c", spec: ShapeSpec(kind: "line"), from: .at(Point(x: 1, y: 2.5)),
                                   to: .bound(Binding(shape: "b", anchor: .point(u: -0.5, v: 0.125))))),
            .op(id: "15b", .connect(shapeID: nil, spec: ShapeSpec(kind: "arrow"), from: .bound(Binding(shape: "a", anchor: .top)), to: .at(.zero))),
            .op(id: "16", .endpoint("c", end: .from, phase: .begin, translation: Point(x: 1, y: -2))),
            .op(id: "17", .moveMany(["a", "b"], phase: .begin, translation: .zero)),
            .op(id: "17b", .moveMany(["a", "b", "c"], phase: nil, translation: Point(x: 1.5, y: -2), snap: false)),
            .op(id: "18", .scaleMany(["a", "b"], phase: .update, factor: 0.5, anchor: Point(x: 3, y: 4), radians: 0.25)),
            .op(id: "19", .rotateMany(["a", "b"], phase: .end, radians: -1)),
            .ping(t: .number(12.5)), .ping(t: .string("x")), .ping(t: nil),
        ]
    }

    @Test("Every message the clients send decodes back to itself", arguments: messages)
    func roundTrip(_ message: ClientMessage) throws {
        #expect(try ClientMessage.decode(message.encode()) == message)
    }

    @Test("Whole numbers are written without a fraction, others in their shortest form")
    func numbers() {
        let text = String(decoding: ClientMessage.op(id: "m", .move("a", phase: .update, translation: Point(x: 3, y: 0.1))).encode(), as: UTF8.self)
        #expect(text == #"{"type":"op","id":"m","op":"move","shape":"a","phase":"update","dx":3,"dy":0.1}"#)
        #expect(JSONWriter.text(2) == "2" && JSONWriter.text(-0.25) == "-0.25" && JSONWriter.text(1e20) == "1e+20")
        #expect(JSONWriter.text(-0.5) == "-0.5" && JSONWriter.text(1234.0625) == "1234.0625" && JSONWriter.text(0.000123) == "0.000123")
        #expect(JSONWriter.text(.nan) == "null" && JSONWriter.text(-.infinity) == "null")
    }

    @Test("Values nested beyond 64 levels are written with every comma in place")
    func deepNesting() throws {
        var value = JSONValue.array([.number(1), .object(["a": .string("x"), "b": .null])])
        for i in 0..<150 { value = i % 2 == 0 ? .array([.number(Double(i)), value, .bool(true)]) : .object(["k": value, "n": .number(Double(i))]) }
        var w = JSONWriter()
        w.value(value)
        w.value(.number(2))
        // What the writer should give, written here by hand (the parser stops at 32 levels).
        func expected(_ v: JSONValue) -> String {
            switch v {
            case .array(let items): "[" + items.map(expected).joined(separator: ",") + "]"
            case .object(let fields): "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":" + expected($0.value) }.joined(separator: ",") + "}"
            case .number(let n): String(Int(n))
            case .string(let t): "\"\(t)\""
            case .bool(let b): b ? "true" : "false"
            case .null: "null"
            }
        }
        #expect(String(decoding: w.bytes, as: UTF8.self) == expected(value) + ",2")
    }

    @Test("Every number reads back to itself; one of up to six fraction digits is written as Swift's shortest form writes it")
    func numbersRoundTrip() {
        var rng = SeededGenerator(seed: "json-numbers")
        for i in 0..<50_000 {
            let v: Double = switch i % 4 {
            case 0: Double(Int64(bitPattern: rng.next()) % 2_000_000_000) / [1, 2, 4, 8, 10, 100, 1_000, 1e6][i % 8]
            case 1: Double(bitPattern: rng.next())
            case 2: (Double(rng.next() % 1_000_000_000) - 5e8) * 1e-9
            default: Double(rng.next() % 100_000) / 7
            }
            guard v.isFinite else { continue }
            let text = JSONWriter.text(v)
            #expect(Double(text) == v, "\(v) written as \(text)")
            let shortest = v.description
            if abs(v) < 1e15, !shortest.contains("e"), let dot = shortest.firstIndex(of: "."), shortest.distance(from: dot, to: shortest.endIndex) <= 7 {
                #expect(text == (shortest.hasSuffix(".0") ? String(shortest.dropLast(2)) : shortest), "\(v)")
            }
        }
    }
}
