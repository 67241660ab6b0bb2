/// Appends JSON to a byte buffer, with keys in the order written. Used for every server message,
/// so each message is serialised once and its bytes shared among recipients.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = [false]

    /// A writer with room for `capacity` bytes before it grows.
    public init(reserving capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    private mutating func separate() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    private mutating func key(_ k: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount))
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        pendingKey = true
    }

    /// A key that is not known at compile time (escaped like any string); the next value belongs to it.
    public mutating func key(_ k: String) {
        string(k)
        bytes.append(UInt8(ascii: ":"))
        pendingKey = true
    }

    /// True between a key and its value: the value needs no comma.
    private var pendingKey = false

    private mutating func beginValue() {
        if pendingKey { pendingKey = false } else { separate() }
    }

    public mutating func beginObject() { beginValue(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    public mutating func endObject() { needsComma.removeLast(); bytes.append(UInt8(ascii: "}")) }
    public mutating func beginArray() { beginValue(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    public mutating func endArray() { needsComma.removeLast(); bytes.append(UInt8(ascii: "]")) }

    public mutating func beginObject(_ k: StaticString) { key(k); beginObject() }
    public mutating func beginArray(_ k: StaticString) { key(k); beginArray() }

    public mutating func string(_ s: String) {
        beginValue()
        bytes.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 15)]])
            default: bytes.append(c)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A number in the shortest form that reads back to the same double; integers print without a fraction.
    /// Non-finite values, which JSON cannot carry, print as null.
    public mutating func number(_ v: Double) {
        beginValue()
        guard v.isFinite else { bytes.append(contentsOf: Array("null".utf8)); return }
        if v == v.rounded(), abs(v) < 1e15 {
            appendDigits(Int64(v))
        } else {
            bytes.append(contentsOf: v.description.utf8)
        }
    }

    public mutating func number(_ v: Int) { beginValue(); appendDigits(Int64(v)) }

    /// A number as `number(_:)` writes it, as text: for other formats that follow the same rule
    /// (whole numbers without a fraction), such as `/metrics`.
    public static func text(_ v: Double) -> String {
        var w = JSONWriter(reserving: 24)
        w.number(v)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// An integer's decimal digits, written straight into the buffer (no String on the way).
    private mutating func appendDigits(_ v: Int64) {
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = v.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }
    public mutating func bool(_ v: Bool) { beginValue(); bytes.append(contentsOf: Array((v ? "true" : "false").utf8)) }
    public mutating func null() { beginValue(); bytes.append(contentsOf: Array("null".utf8)) }

    /// A parsed value, written back out (object keys sorted, so the output is deterministic).
    public mutating func value(_ v: JSONValue) {
        switch v {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let x): number(x)
        case .string(let s): string(s)
        case .array(let items):
            beginArray()
            for item in items { value(item) }
            endArray()
        case .object(let fields):
            beginObject()
            for (k, item) in fields.sorted(by: { $0.key < $1.key }) {
                key(k)
                value(item)
            }
            endObject()
        }
    }

    /// Bytes that are already JSON, such as a message serialised earlier.
    public mutating func raw(_ json: [UInt8]) { beginValue(); bytes.append(contentsOf: json) }

    public mutating func string(_ k: StaticString, _ s: String) { key(k); string(s) }
    public mutating func number(key k: String, _ v: Int) { key(k); number(v) }
    public mutating func number(_ k: StaticString, _ v: Double) { key(k); number(v) }
    public mutating func number(_ k: StaticString, _ v: Int) { key(k); number(v) }
    public mutating func bool(_ k: StaticString, _ v: Bool) { key(k); bool(v) }
    public mutating func null(_ k: StaticString) { key(k); null() }
    public mutating func raw(_ k: StaticString, _ json: [UInt8]) { key(k); raw(json) }
}
