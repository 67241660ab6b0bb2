/// The strict parser behind `JSONValue.parse`: one pass over the bytes, with the offset of the first error.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: index, reason: reason) }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        skipSpace()
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end") }
        for i in 0..<count where bytes[index + i] != word.utf8Start[i] { throw error("invalid literal") }
        index += count
    }

    /// A container at `depth` (0 for the outermost) is nesting level `depth + 1`: at most `maxDepth` (P10).
    mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < JSONValue.maxDepth else { throw error("nested deeper than \(JSONValue.maxDepth)") }
        index += 1
        var fields: [String: JSONValue] = [:]
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            guard fields.updateValue(try value(depth: depth + 1), forKey: key) == nil else { throw error("duplicate key \(key.prefix(32))") }
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(fields) }
            throw error("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < JSONValue.maxDepth else { throw error("nested deeper than \(JSONValue.maxDepth)") }
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try value(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw error("expected ',' or ']'")
        }
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                let s = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                guard let s else { throw error("invalid UTF-8") }
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            guard c >= 0x20 else { throw error("control character in string") }
            index += 1
        }
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let c = bytes[index]
            index += 1
            switch c {
            case UInt8(ascii: "\""):
                guard let s = String(validating: out, as: UTF8.self) else { throw error("invalid UTF-8") }
                return s
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw error("unexpected end") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("lone surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw error("lone surrogate") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default: throw error("invalid escape")
                }
            default:
                guard c >= 0x20 else { throw error("control character in string") }
                out.append(c)
            }
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            index += 1
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    /// A JSON number, strictly per RFC 8259's grammar; magnitudes beyond a double become ±infinity.
    mutating func number() throws(JSONSyntaxError) -> Double {
        let start = index
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.index
            while p.index < p.bytes.count, (0x30...0x39).contains(p.bytes[p.index]) { p.index += 1 }
            return p.index - s
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let intStart = index
        guard digits(&self) > 0 else { throw error("invalid value") }
        if bytes[intStart] == 0x30, index - intStart > 1 { throw error("leading zero") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw error("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw error("invalid number") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let v = Double(text) else { throw error("invalid number") }
        return v
    }
}
