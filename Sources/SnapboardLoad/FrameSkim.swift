/// The few fields the load tool needs from each message of a server frame, found without building a
/// parsed tree: each message's `type`, `live` flag and the op ids in `ops`, plus where the message lies in
/// the frame so it can be parsed in full when it must be (welcomes, presence, committed deltas).
///
/// Live deltas are most of the traffic, and the load tool only needs their op ids; parsing them into
/// dictionaries cost it more CPU than the server spent sending them. The skim checks the syntax of the
/// top level and of each message's keys; values it skips are checked only for closed strings and matching
/// brackets. It gives up (nil) on anything malformed, which the caller then treats as a full parse would.
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

    /// What `live(_:tags:ends:)` made of a frame.
    public enum Live: Equatable {
        /// Every message was a live delta, or presence or a pong (which the load tool does not read): the
        /// tags of the n-th live delta are `tags[ends[n - 1]..<ends[n]]` (from 0 for the first).
        case handled
        /// Some message needs a full reading (`messages`, then a JSON parse): nothing was taken.
        case other
        /// Not JSON the skim can walk.
        case malformed
    }

    /// The load tool's hot path: a frame of live deltas read without allocating. Clears `tags` and `ends`
    /// (keeping their capacity) and fills them as `Live.handled` says.
    public static func live(_ frame: UnsafeRawBufferPointer, tags: inout [OpTag], ends: inout [Int]) -> Live {
        tags.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        let buffer = UnsafeBufferPointer(start: frame.baseAddress?.assumingMemoryBound(to: UInt8.self), count: frame.count)
        var s = Scanner(bytes: buffer)
        s.skipSpace()
        guard s.index < buffer.count else { return .malformed }
        let array = buffer[s.index] == UInt8(ascii: "[")
        if array {
            s.index += 1
            s.skipSpace()
            if s.peek == UInt8(ascii: "]") {
                s.index += 1
                s.skipSpace()
                return s.index == buffer.count ? .handled : .malformed
            }
        }
        while true {
            guard let m = s.fields(tags: &tags) else { return .malformed }
            guard let type = m.type else { return .other }
            if s.equals(type, "delta") {
                guard m.live else { return .other }
                ends.append(tags.count)
            } else if !s.equals(type, "presence"), !s.equals(type, "pong") {
                return .other
            }
            s.skipSpace()
            guard array else { break }
            guard let c = s.next() else { return .malformed }
            if c == UInt8(ascii: "]") { break }
            guard c == UInt8(ascii: ",") else { return .malformed }
        }
        s.skipSpace()
        return s.index == buffer.count ? .handled : .malformed
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
                // Nested values (placements, events, whole shapes) are most of a frame's bytes and none of
                // what the load tool reads: one flat pass that keeps strings and bracket kinds straight.
                var stack: UInt64 = 0, nesting = 0
                while index < bytes.count {
                    let d = bytes[index]
                    index += 1
                    switch d {
                    case UInt8(ascii: "\""):
                        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                            index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                        }
                        guard index < bytes.count else { return false }
                        index += 1
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        guard nesting < 64 - depth else { return false }
                        stack = stack << 1 | (d == UInt8(ascii: "{") ? 1 : 0)
                        nesting += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        guard nesting > 0, (stack & 1 == 1) == (d == UInt8(ascii: "}")) else { return false }
                        stack >>= 1
                        nesting -= 1
                        if nesting == 0 { return true }
                    default:
                        break
                    }
                }
                return false
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
            var m = Message(range: index..<index)
            guard let fields = fields(tags: &m.ops) else { return nil }
            m.range = fields.range
            m.live = fields.live
            if let type = fields.type {
                m.type = String(decoding: UnsafeBufferPointer(rebasing: bytes[type]), as: UTF8.self)
            }
            return m
        }

        /// One message's `type` (where its text lies), `live` flag and whole extent, its op tags appended to
        /// `tags`; nil when it is malformed.
        mutating func fields(tags: inout [OpTag]) -> (range: Range<Int>, type: Range<Int>?, live: Bool)? {
            skipSpace()
            let start = index
            guard next() == UInt8(ascii: "{") else { return nil }
            var type: Range<Int>?, live = false
            skipSpace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return (start..<index, nil, false)
            }
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                guard next() == UInt8(ascii: ":") else { return nil }
                skipSpace()
                if equals(key, "type") {
                    guard let value = string() else { return nil }
                    type = value
                } else if equals(key, "live") {
                    let valueStart = index
                    guard skipValue() else { return nil }
                    live = equals(valueStart..<index, "true")
                } else if equals(key, "ops"), peek == UInt8(ascii: "[") {
                    guard ops(into: &tags) else { return nil }
                } else {
                    guard skipValue() else { return nil }
                }
                skipSpace()
                guard let c = next() else { return nil }
                if c == UInt8(ascii: "}") { break }
                guard c == UInt8(ascii: ",") else { return nil }
            }
            return (start..<index, type, live)
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
