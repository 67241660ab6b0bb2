/// Appends JSON to a byte buffer, with keys in the order written. Used for every server message,
/// so each message is serialised once and its bytes shared among recipients.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Whether the innermost open container (or the top level) already holds a value, so the next needs a
    /// comma: one bit per level, the innermost lowest; levels beyond 63 spill into `deeper`.
    private var commas: UInt64 = 0
    private var depth = 0
    private var deeper: [UInt64] = []

    /// A writer with room for `capacity` bytes before it grows.
    public init(reserving capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    private mutating func separate() {
        if commas & 1 != 0 { bytes.append(UInt8(ascii: ",")) }
        commas |= 1
    }

    private mutating func key(_ k: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        // Byte by byte: a key is a few bytes, and appending a buffer costs more than that many single appends.
        let start = k.utf8Start
        for i in 0..<k.utf8CodeUnitCount { bytes.append(start[i]) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
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

    public mutating func beginObject() { beginValue(); bytes.append(UInt8(ascii: "{")); open() }
    public mutating func endObject() { close(); bytes.append(UInt8(ascii: "}")) }
    public mutating func beginArray() { beginValue(); bytes.append(UInt8(ascii: "[")); open() }
    public mutating func endArray() { close(); bytes.append(UInt8(ascii: "]")) }

    /// A container opens: a new level, with no value yet.
    private mutating func open() {
        depth += 1
        if depth % 64 == 0 {
            deeper.append(commas)
            commas = 0
        } else {
            commas <<= 1
        }
    }

    /// The innermost container closes: back to its parent's level.
    private mutating func close() {
        if depth % 64 == 0 {
            commas = deeper.removeLast()
        } else {
            commas >>= 1
        }
        depth -= 1
    }

    public mutating func beginObject(_ k: StaticString) { key(k); beginObject() }
    public mutating func beginArray(_ k: StaticString) { key(k); beginArray() }

    public mutating func string(_ s: String) {
        beginValue()
        bytes.append(UInt8(ascii: "\""))
        // Most strings (ids, names, kinds) need no escape: their bytes go in at once.
        let plain = s.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
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
        } else if !appendShortDecimal(v) {
            bytes.append(contentsOf: v.description.utf8)
        }
    }

    /// Powers of ten for `appendShortDecimal`.
    private static let scales: [Double] = [10, 100, 1_000, 10_000, 100_000, 1_000_000]

    /// Writes `v` with the fewest fraction digits (1 to 6) that read back to exactly `v`, as plain digits;
    /// false, writing nothing, when `v` needs more or is too large for them. The nearest integer to `v × 10ᵏ`,
    /// divided by `10ᵏ`, is `v` again exactly when some decimal of k fraction digits reads back to `v`, and
    /// it is the closest such decimal: the same digits the shortest round trip gives, without the text
    /// formatting and allocation of `description` (placements are mostly halves and short fractions).
    private mutating func appendShortDecimal(_ v: Double) -> Bool {
        for (k, scale) in Self.scales.enumerated() {
            let scaled = (v * scale).rounded()
            guard abs(scaled) < 1e15 else { return false }
            guard scaled / scale == v else { continue }
            let q = Int64(scaled)
            let unit = Int64(scale)
            if q < 0 { bytes.append(UInt8(ascii: "-")) }
            let magnitude = q.magnitude
            appendDigits(Int64(magnitude / UInt64(unit)))
            bytes.append(UInt8(ascii: "."))
            var fraction = magnitude % UInt64(unit)
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: k + 1))
            var i = bytes.count - 1
            while fraction > 0 {
                bytes[i] = UInt8(ascii: "0") + UInt8(fraction % 10)
                fraction /= 10
                i -= 1
            }
            return true
        }
        return false
    }

    public mutating func number(_ v: Int) { beginValue(); appendDigits(Int64(v)) }

    /// A number as `number(_:)` writes it, as text: for other formats that follow the same rule
    /// (whole numbers without a fraction), such as `/metrics`.
    public static func text(_ v: Double) -> String {
        var w = JSONWriter(reserving: 24)
        w.number(v)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// An integer's decimal digits, written straight into the buffer (no String on the way), from the first
    /// digit on, one append each: most are a few digits, for which one append of a run costs more.
    private mutating func appendDigits(_ v: Int64) {
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = v.magnitude
        var unit: UInt64 = 1
        while magnitude / unit >= 10 { unit *= 10 }
        while unit > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / unit))
            magnitude %= unit
            unit /= 10
        }
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
