import Testing

@testable import SnapboardRawWebSocket

/// What a reader made of a stream, as values to compare.
enum Seen: Equatable {
    case message([UInt8], binary: Bool)
    case joined([UInt8], binary: Bool)
    case ping([UInt8])
    case pong
    case close(UInt16?, String)
    case violation(UInt16)
}

/// A server's frame: unmasked, with the shortest length encoding unless `wide` asks for the 64-bit one.
func serverFrame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, wide: Bool = false) -> [UInt8] {
    var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
    let n = payload.count
    if wide || n > 0xFFFF {
        out.append(127)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(n) >> UInt64(shift))) }
    } else if n >= 126 {
        out += [126, UInt8(n >> 8), UInt8(n & 0xFF)]
    } else {
        out.append(UInt8(n))
    }
    return out + payload
}

/// Feeds `chunks` to a reader as reads would arrive, keeping unconsumed bytes as the loop's buffer does.
func read(_ chunks: [[UInt8]], maxMessageBytes: Int = 1 << 20) -> [Seen] {
    var reader = ServerFrameReader(maxMessageBytes: maxMessageBytes)
    var buffer: [UInt8] = []
    var seen: [Seen] = []
    for chunk in chunks {
        buffer += chunk
        while !buffer.isEmpty {
            var consumed = 0
            var stop = false
            buffer.withUnsafeBytes { bytes in
                switch reader.next(bytes) {
                case .frame(let event, let n):
                    consumed = n
                    switch event {
                    case .message(let payload, let binary)?:
                        // Lent where it lies: inside the bytes given, not a copy.
                        #expect(payload.isEmpty || (payload.baseAddress! >= bytes.baseAddress! && payload.baseAddress! + payload.count <= bytes.baseAddress! + bytes.count))
                        seen.append(.message(Array(payload), binary: binary))
                    case .joined(let payload, let binary)?: seen.append(.joined(payload, binary: binary))
                    case .ping(let payload)?: seen.append(.ping(Array(payload)))
                    case .pong?: seen.append(.pong)
                    case .close(let code, let reason)?: seen.append(.close(code, reason))
                    case nil: break
                    }
                case .incomplete(let needed):
                    #expect(needed > bytes.count)
                    stop = true
                case .violation(let code, _):
                    seen.append(.violation(code))
                    stop = true
                }
            }
            if case .violation? = seen.last { return seen }
            buffer.removeFirst(consumed)
            if stop { break }
        }
    }
    #expect(buffer.isEmpty, "bytes left over: \(buffer.count)")
    return seen
}

@Suite("The raw transport's frame reader, pure")
struct ServerFrameReaderTests {
    static let text = Array("{\"type\":\"delta\",\"live\":true}".utf8)
    static let long = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }
    /// A text frame, a 16-bit-length binary frame, a message in three fragments with a ping between two of
    /// them, a pong, and a close.
    static let stream = serverFrame(0x1, text) + serverFrame(0x2, long)
        + serverFrame(0x1, Array("hel".utf8), fin: false) + serverFrame(0x9, [1, 2]) + serverFrame(0x0, Array("lo, ".utf8), fin: false)
        + serverFrame(0x0, Array("world".utf8)) + serverFrame(0xA, []) + serverFrame(0x8, [0x03, 0xE9] + Array("bye".utf8))
    static let expected: [Seen] = [
        .message(text, binary: false), .message(long, binary: true), .ping([1, 2]),
        .joined(Array("hello, world".utf8), binary: false), .pong, .close(1001, "bye"),
    ]

    @Test("Several frames in one read: each in order, whole messages lent where they lie")
    func oneRead() {
        #expect(read([Self.stream]) == Self.expected)
    }

    @Test("The same frames split at every byte boundary read the same")
    func everySplit() {
        for k in 0...Self.stream.count {
            let seen = read([Array(Self.stream[..<k]), Array(Self.stream[k...])])
            #expect(seen == Self.expected, "split at byte \(k)")
        }
    }

    @Test("The same frames a byte at a time read the same")
    func byteAtATime() {
        #expect(read(Self.stream.map { [$0] }) == Self.expected)
    }

    @Test("Lengths of 7, 16 and 64 bits, at their edges, and a 64-bit length for a short payload",
          arguments: [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
    func lengths(size: Int) {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0) }
        let header = size < 126 ? 2 : size <= 0xFFFF ? 4 : 10
        let frame = serverFrame(0x2, payload)
        #expect(frame.count == header + size)
        #expect(read([frame]) == [.message(payload, binary: true)])
        #expect(read([serverFrame(0x2, payload, wide: true)]) == [.message(payload, binary: true)])
    }

    @Test("A frame over the cap is refused with 1009 from its header alone, before its payload is buffered")
    func oversizeFrame() {
        let header = Array(serverFrame(0x1, [UInt8](repeating: 0x61, count: 70_000)).prefix(10))
        #expect(read([header], maxMessageBytes: 65_536) == [.violation(1009)])
        #expect(read([serverFrame(0x1, [UInt8](repeating: 0x61, count: 1_001))], maxMessageBytes: 1_000) == [.violation(1009)])
        #expect(read([serverFrame(0x1, [UInt8](repeating: 0x61, count: 1_000))], maxMessageBytes: 1_000).count == 1)
    }

    @Test("Fragments that together pass the cap are refused with 1009")
    func oversizeJoined() {
        let part = [UInt8](repeating: 0x61, count: 600)
        let seen = read([serverFrame(0x1, part, fin: false) + serverFrame(0x0, part)], maxMessageBytes: 1_000)
        #expect(seen == [.violation(1009)])
    }

    @Test("A 64-bit length with its top bit set is a protocol error, not a huge allocation")
    func topBit() {
        #expect(read([[0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 1]]) == [.violation(1002)])
    }

    @Test("Frames a server must not send close the connection with 1002", arguments: [
        ("a masked frame", [0x81, 0x81, 1, 2, 3, 4, 0x61]),
        ("reserved bits", [0xC1, 0x01, 0x61]),
        ("a continuation with no message begun", [0x80, 0x01, 0x61]),
        ("a control frame of 126 bytes", [0x89, 126, 0, 126] + [UInt8](repeating: 0, count: 126)),
        ("a fragmented ping", [0x09, 0x00]),
        ("a reserved opcode", [0x83, 0x00]),
        ("a close frame of one byte", [0x88, 0x01, 0x03]),
    ] as [(String, [UInt8])])
    func violations(what: String, bytes: [UInt8]) {
        #expect(read([bytes]) == [.violation(1002)], "\(what)")
    }

    @Test("A new message before the last one's final fragment is a protocol error")
    func interleaved() {
        let seen = read([serverFrame(0x1, [0x61], fin: false) + serverFrame(0x1, [0x62])])
        #expect(seen == [.violation(1002)])
    }

    @Test("A close frame with no payload has no code")
    func emptyClose() {
        #expect(read([serverFrame(0x8, [])]) == [.close(nil, "")])
    }
}
