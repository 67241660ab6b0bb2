import Foundation
import SnapboardCore
import Testing

@testable import SnapboardProtocol

@Suite("JSON parser and writer")
struct JSONTests {
    @Test("Valid JSON parses to the expected values", arguments: [
        (#"{"a":[1,-2.5e3,true,false,null,"x"]}"#, JSONValue.object(["a": .array([.number(1), .number(-2500), .bool(true), .bool(false), .null, .string("x")])])),
        (#" "\u00e9\ud83d\ude00\n\"" "#, .string("é😀\n\"")),
        ("1e400", .number(.infinity)),
        ("-0", .number(-0.0)),
        ("[]", .array([])),
    ])
    func parses(text: String, value: JSONValue) throws {
        #expect(try JSONValue.parse(Array(text.utf8)) == value)
    }

    @Test("Invalid JSON is refused, never trapped on", arguments: [
        "", "{", "{\"a\"}", "{\"a\":}", "[1,]", "01", "1.", "-", "tru", "\"\\x\"", "\"\u{1}\"", "{\"a\":1}x",
        "\"\\ud800\"", "{\"a\":1,\"a\":2}", String(repeating: "[", count: 40) + String(repeating: "]", count: 40), "NaN", "Infinity",
    ])
    func refuses(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(Array(text.utf8)) }
    }

    @Test("[P10] Nesting of 32 levels parses; 33 is refused, in arrays and objects alike")
    func nestingLimit() throws {
        func arrays(_ n: Int) -> [UInt8] { Array((String(repeating: "[", count: n) + "1" + String(repeating: "]", count: n)).utf8) }
        func objects(_ n: Int) -> [UInt8] { Array((String(repeating: #"{"a":"#, count: n) + "1" + String(repeating: "}", count: n)).utf8) }
        _ = try JSONValue.parse(arrays(32))
        _ = try JSONValue.parse(objects(32))
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(arrays(33)) }
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(objects(33)) }
    }

    @Test("Invalid UTF-8 inside a string is refused")
    func invalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test("Integers are written as Swift writes them, from one digit to Int.min and Int.max")
    func integers() {
        var rng = SeededGenerator(seed: "json-integers")
        let edges = [0, 1, 9, 10, 99, 100, 999_999_999_999_999, 1_000_000_000_000_000, -1, -9, -10, -100, Int.max, Int.min]
        let seeded = (0..<20_000).map { _ in Int(bitPattern: UInt(rng.next())) >> Int(rng.next() % 64) }
        for v in edges + seeded {
            var w = JSONWriter()
            w.number(v)
            #expect(String(decoding: w.bytes, as: UTF8.self) == String(v))
        }
    }

    @Test("A key and its value written at once are the bytes the key and then the value give, with and without a comma")
    func keyedValues() {
        var rng = SeededGenerator(seed: "json-keyed")
        var doubles: [Double] = [0, -0.0, 1, -1, 0.5, -2.25, 999_999_999_999_999, 1e15, -1e15, 1e20, .nan, .infinity, 687.3941565362595, 0.1]
        var ints = [0, 7, -7, Int.max, Int.min]
        for _ in 0..<2_000 {
            let whole = Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64)
            let halves = Double(Int64(1) << Int64(rng.next() % 4))
            doubles.append(Double(whole) / halves)
            ints.append(Int(bitPattern: UInt(rng.next())) >> Int(rng.next() % 64))
        }
        let strings = ["", "L7", "roundedRect", "é ü", "quote \" inside", "back\\slash", "tab\t", String(repeating: "x", count: 300)]
        func same(_ fused: (inout JSONWriter) -> Void, _ apart: (inout JSONWriter) -> Void) -> Bool {
            var a = JSONWriter(reserving: 16), b = JSONWriter(reserving: 16)
            for w in [0, 1] {
                a.beginObject()
                b.beginObject()
                if w == 1 { a.bool("first", true); b.bool("first", true) }
                fused(&a)
                apart(&b)
                a.endObject()
                b.endObject()
            }
            return a.bytes == b.bytes
        }
        for v in doubles { #expect(same({ $0.number("x", v) }, { $0.key("x"); $0.number(v) }), "\(v)") }
        for v in ints { #expect(same({ $0.number("rotation", v) }, { $0.key("rotation"); $0.number(v) }), "\(v)") }
        for v in strings { #expect(same({ $0.string("kind", v) }, { $0.key("kind"); $0.string(v) }), "\(v)") }
    }

    @Test("The writer's output is JSON that reads back the same")
    func writerRoundTrip() throws {
        var w = JSONWriter()
        w.beginObject()
        w.string("s", "quote \" slash \\ nl \n tab \t ctl \u{1} é")
        w.number("i", 42)
        w.number("d", 0.1)
        w.number("big", 1e20)
        w.number("nan", .nan)
        w.bool("b", true)
        w.beginArray("a")
        w.number(1)
        w.beginObject()
        w.null("n")
        w.endObject()
        w.endArray()
        w.number(key: "dyn\"key", 7)
        w.endObject()
        let v = try JSONValue.parse(w.bytes)
        #expect(v["s"] == .string("quote \" slash \\ nl \n tab \t ctl \u{1} é"))
        #expect(v["i"] == .number(42) && v["d"] == .number(0.1) && v["big"] == .number(1e20) && v["nan"] == .null)
        #expect(v["a"] == .array([.number(1), .object(["n": .null])]))
        #expect(v["dyn\"key"] == .number(7))
        #expect(try JSONSerialization.jsonObject(with: Data(w.bytes)) is [String: Any])
    }
}
