import Crypto
import Foundation

/// The client's side of the HTTP/1.1 upgrade to a WebSocket (RFC 6455, section 4): the request, and the
/// check of the server's answer (status 101, `Upgrade: websocket`, `Connection: upgrade` and the
/// `Sec-WebSocket-Accept` that the key asks for). Pure.
public struct UpgradeHandshake: Sendable {
    /// The request's `Sec-WebSocket-Key`: sixteen bytes, base64.
    public let key: String
    /// The request, ready to write.
    public let request: [UInt8]
    /// The longest answer's head that is read before giving up.
    public static let maxResponseBytes = 16 << 10

    /// A request for `path` (with its query) on `host:port`, its key made of `nonce` (16 bytes).
    public init(host: String, port: Int, path: String, nonce: [UInt8]) {
        key = Data(nonce).base64EncodedString()
        let hostHeader = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
        request = Array("""
            GET \(path) HTTP/1.1\r
            Host: \(hostHeader)\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: \(key)\r
            Sec-WebSocket-Version: 13\r
            \r

            """.utf8)
    }

    /// The `Sec-WebSocket-Accept` a server must answer `key` with.
    public static func accept(forKey key: String) -> String {
        let digest = Insecure.SHA1.hash(data: Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))
        return Data(digest).base64EncodedString()
    }

    /// What the bytes read so far say.
    public enum Answer: Equatable {
        /// The head of the answer has not all arrived.
        case incomplete
        /// Upgraded: the head is `headBytes` long, and what follows it is the first frames.
        case upgraded(headBytes: Int)
        /// Not upgraded, and why.
        case refused(String)
    }

    /// Reads the server's answer from the start of `bytes`.
    public func check(_ bytes: UnsafeRawBufferPointer) -> Answer {
        guard let end = Self.endOfHead(bytes) else {
            return bytes.count > Self.maxResponseBytes ? .refused("an upgrade answer's head of over \(Self.maxResponseBytes) bytes") : .incomplete
        }
        let head = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let status = lines.isEmpty ? [] : lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard status.count >= 2, status[0].hasPrefix("HTTP/1.") else { return .refused("not an HTTP answer") }
        guard status[1] == "101" else { return .refused("upgrade refused (HTTP \(status[1]))") }
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        guard fields["upgrade"]?.lowercased() == "websocket" else { return .refused("101 without Upgrade: websocket") }
        guard let connection = fields["connection"]?.lowercased(),
              connection.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" })
        else { return .refused("101 without Connection: upgrade") }
        guard fields["sec-websocket-accept"] == Self.accept(forKey: key) else { return .refused("a wrong Sec-WebSocket-Accept") }
        guard fields["sec-websocket-extensions"] == nil else { return .refused("an extension the client did not offer") }
        return .upgraded(headBytes: end + 4)
    }

    /// Where the head's closing blank line (`\r\n\r\n`) starts.
    private static func endOfHead(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}
