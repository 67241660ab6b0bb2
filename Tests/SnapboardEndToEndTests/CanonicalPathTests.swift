import Foundation
import SnapboardProtocol
import Testing

#if canImport(Glibc)
import Glibc
import SnapboardTesting
#endif

extension EndToEnd {
    @Suite("One canonical path per canvas: variant spellings never fork a canvas", .serialized)
    struct CanonicalPathTests {
        /// Spellings of `/v1/canvases/{id}` that decode or normalise to it, or that a decoder might read as it.
        static func variants(_ id: String) -> [String] {
            let first = id.utf8.first!, rest = String(id.dropFirst())
            let encoded = "%" + String(first, radix: 16, uppercase: true) + rest
            return [
                "//v1/canvases/\(id)", "/v1//canvases/\(id)", "/v1/canvases//\(id)", "/./v1/canvases/\(id)", "/v1/./canvases/\(id)",
                "/v1/canvases/./\(id)", "/x/../v1/canvases/\(id)", "/v1/x/../canvases/\(id)", "/v1/canvases/x/../\(id)", "/../v1/canvases/\(id)",
                "/v1/canvases/\(encoded)", "/v1/canvases/\(encoded.lowercased())", "/%761/canvases/\(id)", "/v1/canvases%2F\(id)",
                "/v1%2Fcanvases%2F\(id)", "/v1/canvases/%2e/\(id)", "/v1/canvases/x/%2E%2E/\(id)", "/v1/canvases/x%2F..%2F\(id)",
                "/v1/canvases/\(id);x", "/v1/canvases/\(id)&x", "/v1/canvases/\(id)%3Bx", "/healthz/../v1/canvases/\(id)",
            ]
        }

        /// The status of a WebSocket upgrade of `path` sent raw to `port`; a session that opens is held until
        /// its welcome arrives (its canvas then exists), then closed.
        static func upgradeStatus(_ port: Int, _ path: String) throws -> Int {
            let fd = try connectLoopback(port: port, receiveTimeout: 3)
            defer { close(fd) }
            let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(SmugglingTests.upgradeHead)\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            var response: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                response += buffer[0..<n]
                if response.starts(with: Array("HTTP/1.1 101".utf8)) {
                    if !serverFrames(in: response).isEmpty { break }
                } else if let head = response.firstRange(of: Array("\r\n\r\n".utf8)) {
                    let length = String(decoding: response[..<head.lowerBound], as: UTF8.self).lowercased()
                        .split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if response.count - head.upperBound >= length { break }
                }
            }
            let line = String(decoding: response.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }

        /// The status of a raw `method` of `path` with `body` (JSON).
        static func requestStatus(_ port: Int, _ method: String, _ path: String, body: String = "") throws -> (Int, String) {
            let (response, _) = try rawExchange(port: port, "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body, seconds: 3)
            let line = response.split(separator: "\r\n", maxSplits: 1).first ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0, response)
        }

        /// Which nodes list each canvas.
        static func holders(_ nodes: [ServerProcess]) throws -> [String: [Int]] {
            var found: [String: [Int]] = [:]
            for (i, node) in nodes.enumerated() {
                let listing = try JSONValue.parse(Array(try httpGet(port: node.port, "/v1/canvases?limit=1000").body.utf8))
                guard case .array(let items)? = listing["canvases"] else { continue }
                for case .string(let id)? in items.map({ $0["id"] }) { found[id, default: []].append(i) }
            }
            return found
        }

        @Test("Through a real HAProxy, variant spellings of canvas paths (joins, creates, reads) reach the canvas's own node or are refused 400: each canvas exists on one node only")
        func throughHAProxy() throws {
            let nodes = try (0..<3).map { _ in try ServerProcess() }
            let proxy = try ProxyProcess(nodes: nodes.map(\.port))
            let canvases = (0..<6).map { "canon-\($0)" }
            for canvas in canvases {
                let ann = try TestClient("ws://127.0.0.1:\(proxy.port)/v1/canvases/\(canvas)")
                ann.op("a1", "snap", #""x":100,"y":100"#)
                #expect(ann.pump { $0.all("ack").count == 1 }, "\(canvas)")
                ann.close()
            }
            var answers: [String: Int] = [:]
            for canvas in canvases {
                for path in Self.variants(canvas) {
                    // A create first: on a node that does not hold the canvas it would store a second copy.
                    let (created, response) = try Self.requestStatus(proxy.port, "POST", path, body: "{}")
                    #expect(created == 409 || created == 400, "create \(path): \(response)")
                    let (read, _) = try Self.requestStatus(proxy.port, "GET", path)
                    #expect(read == 200 || read == 400, "read \(path): \(read)")
                    let joined = try Self.upgradeStatus(proxy.port, path)
                    #expect(joined == 101 || joined == 400, "join \(path): \(joined)")
                    #expect((created == 400) == (joined == 400) && (read == 400) == (joined == 400), "\(path): \(created) \(read) \(joined)")
                    answers[path] = joined
                }
            }
            // Normalised variants still work; the rest were refused, none made a second copy.
            #expect(answers.values.contains(101) && answers.values.contains(400), "\(answers)")
            let placed = try Self.holders(nodes)
            for canvas in canvases { #expect(placed[canvas]?.count == 1, "\(canvas): \(placed)") }
            #expect(Set(placed.keys) == Set(canvases), "\(placed)")
            withExtendedLifetime(proxy) {}
        }

        @Test("A server with --shards refuses non-canonical paths 400 non_canonical_path at its acceptor; any server refuses a ; or & in the path")
        func direct() throws {
            let sharded = try ServerProcess(["--shards", "2"])
            for path in Self.variants("direct") where !path.hasSuffix("%3Bx") {
                let (status, response) = try Self.requestStatus(sharded.port, "POST", path, body: "{}")
                #expect(status == 400 && response.contains(#""error":"non_canonical_path""#), "\(path): \(response)")
                #expect(try Self.upgradeStatus(sharded.port, path) == 400, "join \(path)")
            }
            #expect(try Self.holders([sharded]).isEmpty)
            #expect(try Self.upgradeStatus(sharded.port, "/v1/canvases/direct") == 101)
            let alone = try ServerProcess()
            for path in ["/v1/canvases/alone;x", "/v1/canvases/alone&x"] {
                let (status, response) = try Self.requestStatus(alone.port, "POST", path, body: "{}")
                #expect(status == 400 && response.contains(#""error":"non_canonical_path""#), "\(path): \(response)")
                #expect(try Self.upgradeStatus(alone.port, path) == 400, "join \(path)")
            }
            #expect(try Self.holders([alone]).isEmpty)
        }
    }
}
