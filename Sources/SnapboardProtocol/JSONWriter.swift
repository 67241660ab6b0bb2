/// Appends JSON to a byte buffer, with keys in the order written. Used for every server message,
/// so each message is serialised once and its bytes shared among recipients.
public struct JSONWriter: Sendable {
    /// The JSON written so far is `storage[..<count]`; the rest is room for what comes next. Each token
    /// (a key with its quotes and colon, a number, a plain string) is written in one unsafe copy into that
    /// room: an append per byte cost a uniqueness and capacity check per byte.
    private var storage: [UInt8]
    /// The bytes written so far.
    public private(set) var count = 0
    /// Whether the innermost open container (or the top level) already holds a value, so the next needs a
    /// comma: one bit per level, the innermost lowest; levels beyond 63 spill into `deeper`.
    private var commas: UInt64 = 0
    private var depth = 0
    private var deeper: [UInt64] = []

    /// A writer with room for `capacity` bytes before it grows.
    public init(reserving capacity: Int = 256) {
        storage = [UInt8](repeating: 0, count: max(capacity, 16))
    }

    /// The JSON written. The room beyond it is let go of, so the array returned is the writer's own
    /// buffer, not a copy.
    public var bytes: [UInt8] {
        mutating get {
            if storage.count > count { storage.removeSubrange(count...) }
            return storage
        }
    }

    /// The JSON written, moved out of the writer, which is left empty: the array returned is the only
    /// reference to its buffer, so changing it copies nothing.
    public mutating func take() -> [UInt8] {
        var out: [UInt8] = []
        swap(&out, &storage)
        if out.count > count { out.removeSubrange(count...) }
        count = 0
        commas = 0
        depth = 0
        deeper = []
        pendingKey = false
        return out
    }

    /// Runs `body` on room for `n` more bytes, which it must fill, and counts them written.
    @inline(__always)
    mutating func put(_ n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
        if count + n > storage.count { grow(count + n) }
        let at = count
        storage.withUnsafeMutableBufferPointer { body($0.baseAddress! + at) }
        count += n
    }

    private mutating func grow(_ needed: Int) {
        storage.append(contentsOf: repeatElement(0, count: max(needed, storage.count * 2) - storage.count))
    }

    private mutating func byte(_ b: UInt8) { put(1) { $0[0] = b } }

    /// 1 when the innermost container already holds a value (a comma comes first), else 0; marks it as
    /// holding one.
    mutating func comma() -> Int {
        defer { commas |= 1 }
        return Int(commas & 1)
    }

    mutating func key(_ k: StaticString) {
        let c = comma()
        put(c + k.utf8CodeUnitCount + 3) { Self.write(k, comma: c, $0) }
        pendingKey = true
    }

    /// Writes `,"k":` (without the comma when `c` is 0) at `p`; returns the bytes written.
    @inline(__always)
    @discardableResult
    static func write(_ k: StaticString, comma c: Int, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        let n = k.utf8CodeUnitCount
        p[0] = UInt8(ascii: ",")
        p[c] = UInt8(ascii: "\"")
        (p + c + 1).update(from: k.utf8Start, count: n)
        p[c + n + 1] = UInt8(ascii: "\"")
        p[c + n + 2] = UInt8(ascii: ":")
        return c + n + 3
    }

    /// A key that is not known at compile time (escaped like any string); the next value belongs to it.
    public mutating func key(_ k: String) {
        string(k)
        byte(UInt8(ascii: ":"))
        pendingKey = true
    }

    /// True between a key and its value: the value needs no comma.
    private var pendingKey = false

    /// 1 when the value about to be written needs a comma before it, else 0.
    mutating func beginValue() -> Int {
        if pendingKey {
            pendingKey = false
            return 0
        }
        return comma()
    }

    /// A value of one byte (an opening bracket), with its comma if it needs one.
    private mutating func value(byte b: UInt8) {
        let c = beginValue()
        put(c + 1) { p in
            p[0] = UInt8(ascii: ",")
            p[c] = b
        }
    }

    /// A value written as it is (`true`, `null`), with its comma if it needs one.
    mutating func value(literal text: StaticString) {
        let c = beginValue(), n = text.utf8CodeUnitCount
        put(c + n) { p in
            p[0] = UInt8(ascii: ",")
            (p + c).update(from: text.utf8Start, count: n)
        }
    }

    public mutating func beginObject() { value(byte: UInt8(ascii: "{")); open() }
    public mutating func endObject() { close(); byte(UInt8(ascii: "}")) }
    public mutating func beginArray() { value(byte: UInt8(ascii: "[")); open() }
    public mutating func endArray() { close(); byte(UInt8(ascii: "]")) }

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

    /// Fields known when the code is compiled, written as they are (`"type":"guide","axis":"x"`), in one
    /// copy: the next member of the open object, after its comma if it needs one.
    public mutating func fields(_ text: StaticString) {
        let c = comma(), n = text.utf8CodeUnitCount
        put(c + n) { p in
            p[0] = UInt8(ascii: ",")
            (p + c).update(from: text.utf8Start, count: n)
        }
    }

    public mutating func beginObject(_ k: StaticString) { key(k); beginObject() }
    public mutating func beginArray(_ k: StaticString) { key(k); beginArray() }

    public mutating func string(_ s: String) {
        let c = beginValue()
        // Most strings (ids, names, kinds) need no escape: their bytes go in at once.
        var s = s
        let plain = s.withUTF8 { utf8 -> Bool in
            guard Self.isPlain(utf8) else { return false }
            let n = utf8.count
            put(c + n + 2) { p in
                p[0] = UInt8(ascii: ",")
                p[c] = UInt8(ascii: "\"")
                if let base = utf8.baseAddress { (p + c + 1).update(from: base, count: n) }
                p[c + n + 1] = UInt8(ascii: "\"")
            }
            return true
        }
        if plain { return }
        if c == 1 { byte(UInt8(ascii: ",")) }
        byte(UInt8(ascii: "\""))
        for ch in s.utf8 {
            switch ch {
            case UInt8(ascii: "\""): escape(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): escape(UInt8(ascii: "\\"))
            case 0x0A: escape(UInt8(ascii: "n"))
            case 0x0D: escape(UInt8(ascii: "r"))
            case 0x09: escape(UInt8(ascii: "t"))
            case 0..<0x20:
                let hex = Self.hexDigits
                put(6) { p in
                    p[0] = 0x5C
                    p[1] = UInt8(ascii: "u")
                    p[2] = 0x30
                    p[3] = 0x30
                    p[4] = hex[Int(ch >> 4)]
                    p[5] = hex[Int(ch & 15)]
                }
            default: byte(ch)
            }
        }
        byte(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A backslash and `b`.
    private mutating func escape(_ b: UInt8) {
        put(2) { p in
            p[0] = 0x5C
            p[1] = b
        }
    }

    /// Whether a string's bytes go into JSON as they are, with no escape.
    @inline(__always)
    private static func isPlain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        !utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }

    public mutating func bool(_ v: Bool) { value(literal: v ? "true" : "false") }
    public mutating func null() { value(literal: "null") }

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
    public mutating func raw(_ json: [UInt8]) {
        let c = beginValue()
        put(c + json.count) { p in
            p[0] = UInt8(ascii: ",")
            json.withUnsafeBufferPointer { if let base = $0.baseAddress { (p + c).update(from: base, count: json.count) } }
        }
    }

    /// A key and a plain string (no escapes) in one write; otherwise the key, then the string escaped.
    public mutating func string(_ k: StaticString, _ s: String) {
        var s = s
        let plain = s.withUTF8 { utf8 -> Bool in
            guard Self.isPlain(utf8) else { return false }
            let c = comma(), m = utf8.count
            put(c + k.utf8CodeUnitCount + m + 5) { p in
                let at = Self.write(k, comma: c, p)
                p[at] = UInt8(ascii: "\"")
                if let base = utf8.baseAddress { (p + at + 1).update(from: base, count: m) }
                p[at + m + 1] = UInt8(ascii: "\"")
            }
            return true
        }
        if !plain {
            key(k)
            string(s)
        }
    }

    public mutating func bool(_ k: StaticString, _ v: Bool) { key(k); bool(v) }
    public mutating func null(_ k: StaticString) { key(k); null() }
    public mutating func raw(_ k: StaticString, _ json: [UInt8]) { key(k); raw(json) }
}
