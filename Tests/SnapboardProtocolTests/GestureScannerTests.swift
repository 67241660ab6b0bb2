import SnapboardCore
import Testing

@testable import SnapboardProtocol

/// The gesture fast path must answer exactly as the strict parser, or step aside.
@Suite("Gesture fast path")
struct GestureScannerTests {
    /// A gesture op as a client might write it: fields in any order, optional ones left out, spaces here
    /// and there, numbers in several notations.
    static func message(_ rng: inout SeededGenerator) -> String {
        func number() -> String {
            switch rng.next() % 6 {
            case 0: "\(Int(rng.next() % 2000) - 1000)"
            case 1: "\(Double(Int(rng.next() % 200_000) - 100_000) / 100)"
            case 2: "-0"
            case 3: "1.5e\(Int(rng.next() % 5))"
            case 4: "2E-3"
            default: "\(Double(rng.next() % 1000) / 7)"
            }
        }
        let kind = ["move", "scale", "rotate"][Int(rng.next() % 3)]
        var fields = [#""type":"op""#, #""id":"c1.\#(rng.next() % 1000)""#, #""op":"\#(kind)""#, #""shape":"s\#(rng.next() % 50)""#]
        if rng.next() % 4 != 0 { fields.append(#""phase":"\#(["begin", "update", "end"][Int(rng.next() % 3)])""#) }
        switch kind {
        case "move":
            if rng.next() % 5 != 0 { fields.append(#""dx":\#(number())"#) }
            if rng.next() % 5 != 0 { fields.append(#""dy":\#(number())"#) }
            if rng.next() % 3 == 0 { fields.append(#""snap":\#(rng.next() % 2 == 0 ? "false" : "true")"#) }
        case "scale":
            if rng.next() % 5 != 0 { fields.append(#""factor":\#(number())"#) }
            if rng.next() % 2 == 0 { fields += [#""ax":\#(number())"#, #""ay":\#(number())"#] }
            if rng.next() % 3 == 0 { fields.append(#""radians":\#(number())"#) }
        default:
            if rng.next() % 5 != 0 { fields.append(#""radians":\#(number())"#) }
        }
        fields.shuffle(using: &rng)
        let space = [" ", "", "\n", "\t "]
        return space[Int(rng.next() % 4)] + "{" + fields.map { f in
            f.replacingOccurrences(of: ":", with: space[Int(rng.next() % 4)] + ":" + space[Int(rng.next() % 4)])
        }.joined(separator: ",") + "}" + space[Int(rng.next() % 4)]
    }

    @Test("Every well-formed gesture op takes the fast path, with the strict parser's result")
    func sameAsStrict() throws {
        var rng = SeededGenerator(seed: "gesture-scanner")
        for _ in 0..<5_000 {
            let bytes = Array(Self.message(&rng).utf8)
            let fast = bytes.withUnsafeBufferPointer(GestureScanner.decode)
            let strict = try ClientMessage.decodeStrictly(bytes)
            #expect(fast == strict, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test("A number is read to the very Double the text parser reads, sign of zero included, whatever its digits")
    func numbersAsText() {
        var rng = SeededGenerator(seed: "gesture-scanner-numbers")
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(rng.next() % 10)) }) }
        for _ in 0..<200_000 {
            // 0 or 1 to 18 digits without a leading zero, then 0 to 18 decimals, sometimes an exponent.
            let whole = rng.next() % 4 == 0 ? "0" : String(1 + rng.next() % 9) + digits(Int(rng.next() % 18))
            let decimals = Int(rng.next() % 19)
            var text = (rng.next() % 2 == 0 ? "-" : "") + whole + (decimals == 0 ? "" : "." + digits(decimals))
            if rng.next() % 8 == 0 { text += "e\(Int(rng.next() % 40) - 20)" }
            let bytes = Array(text.utf8)
            var i = 0
            let read = bytes.withUnsafeBufferPointer { GestureScanner.number($0, &i) }
            #expect(read?.bitPattern == Double(text)?.bitPattern && i == bytes.count, "\(text): \(String(describing: read))")
        }
    }

    @Test("A mutated message gets the strict parser's answer: the same message, or the same error")
    func mutationsAgree() {
        var rng = SeededGenerator(seed: "gesture-scanner-mutations")
        let alphabet = Array(#"{}[]":,.-+eE0123456789 \nabtrunlxy"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
        var fastTaken = 0
        for _ in 0..<20_000 {
            var bytes = Array(Self.message(&rng).utf8)
            for _ in 0...(rng.next() % 3) {
                let at = Int(rng.next() % UInt64(bytes.count + 1))
                let byte = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                switch rng.next() % 3 {
                case 0: bytes.insert(byte, at: at)
                case 1: if at < bytes.count { bytes.remove(at: at) }
                default: if at < bytes.count { bytes[at] = byte }
                }
            }
            let strict = Result { () throws(ProtocolError) in try ClientMessage.decodeStrictly(bytes) }
            let decoded = Result { () throws(ProtocolError) in try ClientMessage.decode(bytes) }
            #expect(decoded == strict, "\(bytes)")
            if bytes.withUnsafeBufferPointer(GestureScanner.decode) != nil { fastTaken += 1 }
        }
        // Many mutations leave a valid message (a digit changed, a space added): those took the fast path.
        #expect(fastTaken > 1_000)
    }

    @Test("What the fast path leaves alone", arguments: [
        #"{"type":"op","id":"a","op":"move","shape":"s","dx":1,"dy":2,"extra":true}"#,
        #"{"type":"op","id":"a","op":"move","shape":"s","dx":1,"dx":2}"#,
        #"{"type":"op","id":"\u0061","op":"move","shape":"s"}"#,
        #"{"type":"op","id":"é","op":"move","shape":"s"}"#,
        #"{"type":"op","id":"a","op":"move","shape":"s","phase":null}"#,
        #"{"type":"op","id":"a","op":"snap","x":1,"y":2}"#,
        #"{"type":"cursor","x":1,"y":2}"#,
        #"{"type":"op","id":"a","op":"move","shape":"s","phase":"later"}"#,
        #"{"type":"op","id":"a","op":"scale","shape":"s","ax":1}"#,
        #"{"type":"op","id":"a","op":"move","shape":"s","dx":"1"}"#,
        #"{"type":"op","id":"","op":"move","shape":"s"}"#,
        #"{"type":"op","id":"a","op":"move","shape":"s","dx":01}"#,
        #"{"type":"op","id":"a","op":"move","shape":"s"} x"#,
        #"{"type":"op","id":"a","op":"move","shape":"s","snap":"no"}"#,
        #"{"type":"op","id":"a","op":"move","shape":"s","snap":null}"#,
        #"{"type":"op","id":"a","op":"move","shape":"s","snap":0}"#,
        #"{"type":"op","id":"a","op":"move","shape":"s","snap":falsey}"#,
    ])
    func stepsAside(text: String) {
        #expect(Array(text.utf8).withUnsafeBufferPointer(GestureScanner.decode) == nil)
    }

    @Test("[P13] snap on a move: false or true from either path, absent or null as true, anything else bad_message")
    func snapField() throws {
        func decoded(_ text: String) throws -> ClientMessage { try ClientMessage.decode(Array(text.utf8)) }
        #expect(try decoded(#"{"type":"op","id":"a","op":"move","shape":"s","dx":1,"snap":false}"#)
            == .op(id: "a", .move("s", phase: nil, translation: Point(x: 1, y: 0), snap: false)))
        #expect(try decoded(#"{"type":"op","id":"a","op":"move","shape":"s","phase":"begin","snap":true}"#)
            == .op(id: "a", .move("s", phase: .begin, translation: .zero)))
        #expect(try decoded(#"{"type":"op","id":"a","op":"move","shape":"s","snap":null}"#)
            == .op(id: "a", .move("s", phase: nil, translation: .zero)))
        for bad in [#""no""#, "0", "[]"] {
            #expect(throws: ProtocolError(.badMessage, "'snap' must be true or false", id: "a")) {
                try decoded(#"{"type":"op","id":"a","op":"move","shape":"s","snap":\#(bad)}"#)
            }
        }
    }
}
