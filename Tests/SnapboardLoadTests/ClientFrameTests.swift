import Testing

@testable import SnapboardRawWebSocket

@Suite("The raw transport's client frames and upgrade, pure")
struct ClientFrameTests {
    @Test("A client frame is final, masked, with the shortest length, and unmasks to its payload",
          arguments: [0, 1, 7, 8, 9, 125, 126, 65_535, 65_536])
    func maskedFrame(size: Int) {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var masks = MaskGenerator(seed: UInt64(size) + 1)
        let mask = masks.next()
        var out: [UInt8] = [0xEE]  // frames are appended after what the outbox holds
        payload.withUnsafeBytes { ClientFrame.append(opcode: ClientFrame.text, payload: $0, mask: mask, to: &out) }
        #expect(out[0] == 0xEE && out[1] == 0x81)
        let header = size < 126 ? 2 : size <= 0xFFFF ? 4 : 10
        #expect(out[2] & 0x80 != 0, "the mask bit")
        #expect(Int(out[2] & 0x7F) == (size < 126 ? size : size <= 0xFFFF ? 126 : 127))
        let key = Array(out[(1 + header)..<(1 + header + 4)])
        #expect(key == [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: mask >> UInt32($0)) })
        let masked = Array(out[(1 + header + 4)...])
        #expect(masked.count == size)
        #expect(masked.enumerated().map { $0.element ^ key[$0.offset % 4] } == payload)
    }

    @Test("Masks vary from frame to frame")
    func masksVary() {
        var masks = MaskGenerator(seed: 42)
        #expect(Set((0..<1000).map { _ in masks.next() }).count == 1000)
    }

    @Test("Sec-WebSocket-Accept for RFC 6455's example key")
    func acceptKey() {
        #expect(UpgradeHandshake.accept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    static let handshake = UpgradeHandshake(host: "127.0.0.1", port: 8080, path: "/v1/canvases/a?client=x", nonce: Array("the sample nonce".utf8))

    func check(_ answer: String) -> UpgradeHandshake.Answer {
        Array(answer.utf8).withUnsafeBytes { Self.handshake.check($0) }
    }

    @Test("The request asks for the path on the host, with a 16-byte key")
    func request() {
        let text = String(decoding: Self.handshake.request, as: UTF8.self)
        #expect(text.hasPrefix("GET /v1/canvases/a?client=x HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"))
        #expect(text.contains("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n") && text.hasSuffix("\r\n\r\n"))
    }

    @Test("A 101 with the right accept upgrades, and the bytes after its head are the first frames")
    func upgraded() {
        let head = "HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
        #expect(check(head + "\u{81}\u{0}") == .upgraded(headBytes: head.utf8.count))
        #expect(check(String(head.dropLast(3))) == .incomplete)
    }

    @Test("Refused: an HTTP error, a wrong accept, no Upgrade header, an extension not offered")
    func refused() {
        #expect(check("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n") == .refused("upgrade refused (HTTP 403)"))
        let ok = "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        #expect(check("HTTP/1.1 101 OK\r\n" + ok + "Sec-WebSocket-Accept: AAAA\r\n\r\n") == .refused("a wrong Sec-WebSocket-Accept"))
        #expect(check("HTTP/1.1 101 OK\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
                == .refused("101 without Upgrade: websocket"))
        #expect(check("HTTP/1.1 101 OK\r\n" + ok + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n")
                == .refused("an extension the client did not offer"))
        let endless = "HTTP/1.1 101 OK\r\n" + String(repeating: "X-Padding: aaaaaaaaaaaaaaaa\r\n", count: 1_000)
        #expect(check(endless) == .refused("an upgrade answer's head of over 16384 bytes"))
    }
}
