/// The few fields the load tool needs from each message of a server frame, found without building a
/// parsed tree: each message's `type`, `live` flag and the op ids in `ops`, plus where the message lies in
/// the frame so it can be parsed in full when it must be (welcomes, presence, committed deltas).
///
/// Live deltas are most of the traffic, and the load tool only needs their op ids; parsing them into
/// dictionaries cost it more CPU than the server spent sending them. The skim checks the syntax it walks
/// over, and gives up (nil) on anything malformed, which the caller then treats as a full parse would.
public struct FrameSkim {
    public struct Message {
        /// The message's bytes within the frame.
        public var range: Range<Int>
        public var type: String = ""
        public var live = false
        /// The `ops` entries that are the load tool's own op tags.
        public var ops: [OpTag] = []
    }

    /// The messages of a frame: one for an object, one per element for an array (P2).
    public static func messages(_ frame: [UInt8]) -> [Message]? {
        frame.withUnsafeBufferPointer { buffer in
            var s = Scanner(bytes: buffer)
            s.skipSpace()
            guard s.index < buffer.count else { return nil }
            var out: [Message] = []
            if buffer[s.index] == UInt8(ascii: "[") {
                s.index += 1
                s.skipSpace()
                if s.peek == UInt8(ascii: "]") { return [] }
                while true {
                    guard let m = s.message() else { return nil }
                    out.append(m)
                    s.skipSpace()
                    guard let c = s.next() else { return nil }
                    if c == UInt8(ascii: "]") { break }
                    guard c == UInt8(ascii: ",") else { return nil }
                }
            } else {
                guard let m = s.message() else { return nil }
                out.append(m)
            }
            s.skipSpace()
            return s.index == buffer.count ? out : nil
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func next() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                index += 1
            }
        }

        /// A string's contents (escapes left as they are); the index ends after the closing quote.
        mutating func string() -> Range<Int>? {
            guard next() == UInt8(ascii: "\"") else { return nil }
            let start = index
            while let c = next() {
                if c == UInt8(ascii: "\\") { guard next() != nil else { return nil } }
                else if c == UInt8(ascii: "\"") { return start..<(index - 1) }
            }
            return nil
        }

        /// Skips any value, nested ones included.
        mutating func skipValue(depth: Int = 0) -> Bool {
            guard depth < 64 else { return false }
            skipSpace()
            guard let c = peek else { return false }
            switch c {
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = c == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                index += 1
                skipSpace()
                if peek == close { index += 1; return true }
                while true {
                    if close == UInt8(ascii: "}") {
                        skipSpace()
                        guard string() != nil else { return false }
                        skipSpace()
                        guard next() == UInt8(ascii: ":") else { return false }
                    }
                    guard skipValue(depth: depth + 1) else { return false }
                    skipSpace()
                    guard let d = next() else { return false }
                    if d == close { return true }
                    guard d == UInt8(ascii: ",") else { return false }
                }
            default:
                // A number or a literal: everything up to the next delimiter.
                let start = index
                while let d = peek, d != UInt8(ascii: ","), d != UInt8(ascii: "}"), d != UInt8(ascii: "]"), d > 0x20 { index += 1 }
                return index > start
            }
        }

        func equals(_ range: Range<Int>, _ word: StaticString) -> Bool {
            guard range.count == word.utf8CodeUnitCount else { return false }
            for i in 0..<range.count where bytes[range.lowerBound + i] != word.utf8Start[i] { return false }
            return true
        }

        mutating func message() -> Message? {
            skipSpace()
            let start = index
            guard next() == UInt8(ascii: "{") else { return nil }
            var m = Message(range: start..<start)
            skipSpace()
            if peek == UInt8(ascii: "}") {
                index += 1
                m.range = start..<index
                return m
            }
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                guard next() == UInt8(ascii: ":") else { return nil }
                skipSpace()
                if equals(key, "type") {
                    guard let value = string() else { return nil }
                    m.type = String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)
                } else if equals(key, "live") {
                    let valueStart = index
                    guard skipValue() else { return nil }
                    m.live = equals(valueStart..<index, "true")
                } else if equals(key, "ops"), peek == UInt8(ascii: "[") {
                    guard ops(into: &m.ops) else { return nil }
                } else {
                    guard skipValue() else { return nil }
                }
                skipSpace()
                guard let c = next() else { return nil }
                if c == UInt8(ascii: "}") { break }
                guard c == UInt8(ascii: ",") else { return nil }
            }
            m.range = start..<index
            return m
        }

        mutating func ops(into tags: inout [OpTag]) -> Bool {
            index += 1
            skipSpace()
            if peek == UInt8(ascii: "]") { index += 1; return true }
            while true {
                skipSpace()
                guard let id = string() else { return false }
                if let tag = OpTag(utf8: UnsafeBufferPointer(rebasing: bytes[id])) { tags.append(tag) }
                skipSpace()
                guard let c = next() else { return false }
                if c == UInt8(ascii: "]") { return true }
                guard c == UInt8(ascii: ",") else { return false }
            }
        }
    }
}
