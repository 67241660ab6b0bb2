import SnapboardCore

/// The hot path of decoding: a drag's ops (`move`, `scale` and `rotate`, most of all their updates) read
/// straight from the bytes into a `ClientMessage`, with no `JSONValue` tree, no dictionary and no string
/// but the op id and the shape id.
///
/// It takes only what it can answer exactly as the strict path would: one flat object whose keys are
/// among an op's own fields, each at most once, with ASCII strings free of escapes and numbers in RFC
/// 8259's grammar, and `true` or `false`. Anything else (nesting, an escape, a byte outside ASCII, `null`, another key, a
/// missing or mistyped field, another message type or op) returns nil, and `ClientMessage.decode` hands
/// the message to the strict parser, which gives the answer or the documented error (P10).
enum GestureScanner {
    private enum Key: Int, CaseIterable {
        case type, id, op, shape, phase, dx, dy, factor, ax, ay, radians, snap
    }

    private enum Value {
        case string(Range<Int>)
        case number(Double)
        case bool(Bool)
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> ClientMessage? {
        // The fields found, by key, on the stack: a heap array cost as much as scanning the message.
        withUnsafeTemporaryAllocation(of: Value?.self, capacity: Key.allCases.count) { values in
            values.initialize(repeating: nil)
            defer { values.deinitialize() }
            return scan(bytes, into: values)
        }
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, into values: UnsafeMutableBufferPointer<Value?>) -> ClientMessage? {
        var i = 0
        let n = bytes.count
        func skipSpace() {
            while i < n, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }
        /// An ASCII string without escapes or control characters, after its opening quote.
        func plainString() -> Range<Int>? {
            let start = i
            while i < n {
                let c = bytes[i]
                if c == UInt8(ascii: "\"") {
                    i += 1
                    return start..<(i - 1)
                }
                guard c >= 0x20, c < 0x7F, c != UInt8(ascii: "\\") else { return nil }
                i += 1
            }
            return nil
        }
        skipSpace()
        guard i < n, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while true {
            skipSpace()
            guard i < n, bytes[i] == UInt8(ascii: "\"") else { return nil }
            i += 1
            guard let keyRange = plainString(), let key = key(bytes, keyRange), values[key.rawValue] == nil else { return nil }
            skipSpace()
            guard i < n, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace()
            guard i < n else { return nil }
            if bytes[i] == UInt8(ascii: "\"") {
                i += 1
                guard let range = plainString() else { return nil }
                values[key.rawValue] = .string(range)
            } else if let literal = literal(bytes, &i) {
                values[key.rawValue] = .bool(literal)
            } else {
                guard let number = number(bytes, &i) else { return nil }
                values[key.rawValue] = .number(number)
            }
            skipSpace()
            guard i < n else { return nil }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            guard bytes[i] == UInt8(ascii: "}") else { return nil }
            i += 1
            skipSpace()
            guard i == n else { return nil }
            break
        }
        return message(bytes, values)
    }

    private static func key(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Key? {
        // Every key is 2 to 7 bytes: packed into one integer, a key is found by comparing integers.
        guard range.count >= 2, range.count <= 7 else { return nil }
        var word: UInt64 = 0
        for j in range.reversed() { word = word << 8 | UInt64(bytes[j]) }
        // The names' bytes, the first lowest: "type" is 0x65_70_79_74, "t" (0x74) first.
        switch word {
        case 0x6570_7974: return .type
        case 0x6469: return .id
        case 0x706F: return .op
        case 0x65_7061_6873: return .shape
        case 0x65_7361_6870: return .phase
        case 0x7864: return .dx
        case 0x7964: return .dy
        case 0x726F_7463_6166: return .factor
        case 0x7861: return .ax
        case 0x7961: return .ay
        case 0x73_6E61_6964_6172: return .radians
        case 0x7061_6E73: return .snap
        default: return nil
        }
    }

    /// `true` or `false` at `i`, stepping past it; nil (and `i` untouched) for anything else.
    private static func literal(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Bool? {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "t") || bytes[i] == UInt8(ascii: "f") else { return nil }
        let value = bytes[i] == UInt8(ascii: "t")
        let word: StaticString = value ? "true" : "false"
        let end = i + word.utf8CodeUnitCount
        guard end <= bytes.count else { return nil }
        for j in 0..<word.utf8CodeUnitCount where bytes[i + j] != word.utf8Start[j] { return nil }
        i = end
        return value
    }

    /// A number per RFC 8259's grammar, converted as the strict parser converts it.
    static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Double? {
        let n = bytes.count, start = i
        var mantissa: UInt64 = 0, count = 0
        func digits() -> Int {
            let s = i
            while i < n, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                if count < 19 { mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 0x30) }
                count += 1
                i += 1
            }
            return i - s
        }
        let negative = i < n && bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let intStart = i
        guard digits() > 0 else { return nil }
        if bytes[intStart] == 0x30, i - intStart > 1 { return nil }
        var fraction = 0
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            fraction = digits()
            guard fraction > 0 else { return nil }
        }
        var exponent = false
        if i < n, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < n, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return nil }
            exponent = true
        }
        // Up to 15 digits are exact as a Double, and so is 10^k up to 10^15: one division, rounded once, is the
        // nearest Double to the decimal, as the text parser gives (Clinger's fast path).
        if !exponent, count <= 15 {
            let value = Double(mantissa) / Self.powersOfTen[fraction]
            return negative ? -value : value
        }
        return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
    }

    /// 10^0 … 10^15, each exact as a Double.
    private static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

    private static func message(_ bytes: UnsafeBufferPointer<UInt8>, _ values: UnsafeMutableBufferPointer<Value?>) -> ClientMessage? {
        func text(_ key: Key) -> String? {
            guard case .string(let r)? = values[key.rawValue] else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[r]), as: UTF8.self)
        }
        func equals(_ key: Key, _ word: StaticString) -> Bool {
            guard case .string(let r)? = values[key.rawValue], r.count == word.utf8CodeUnitCount else { return false }
            for j in 0..<r.count where bytes[r.lowerBound + j] != word.utf8Start[j] { return false }
            return true
        }
        /// The number under `key`, `fallback` when absent; nil when it holds a string.
        func number(_ key: Key, _ fallback: Double?) -> Double?? {
            switch values[key.rawValue] {
            case nil: return .some(fallback)
            case .number(let v)?: return .some(v)
            case .string?, .bool?: return nil
            }
        }
        guard equals(.type, "op"), let id = text(.id), !id.isEmpty, id.utf8.count <= 64,
              let shape = text(.shape)
        else { return nil }
        var phase: GesturePhase?
        switch values[Key.phase.rawValue] {
        case nil: phase = nil
        case .string?:
            if equals(.phase, "update") {
                phase = .update
            } else if equals(.phase, "begin") {
                phase = .begin
            } else if equals(.phase, "end") {
                phase = .end
            } else {
                return nil
            }
        case .number?, .bool?: return nil
        }
        let op: CanvasOp
        if equals(.op, "move") {
            guard let dx = number(.dx, 0), let dy = number(.dy, 0) else { return nil }
            var snap = true
            switch values[Key.snap.rawValue] {
            case nil: break
            case .bool(let b)?: snap = b
            case .string?, .number?: return nil
            }
            op = .move(shape, phase: phase, translation: Point(x: dx!, y: dy!), snap: snap)
        } else if equals(.op, "rotate") {
            guard let radians = number(.radians, 0) else { return nil }
            op = .rotate(shape, phase: phase, radians: radians!)
        } else if equals(.op, "scale") {
            guard let factor = number(.factor, 1), let radians = number(.radians, 0),
                  let ax = number(.ax, nil), let ay = number(.ay, nil), (ax == nil) == (ay == nil)
            else { return nil }
            op = .scale(shape, phase: phase, factor: factor!, anchor: ax.map { Point(x: $0, y: ay!) }, radians: radians!)
        } else {
            return nil
        }
        return .op(id: id, op)
    }
}
