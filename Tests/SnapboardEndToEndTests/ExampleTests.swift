import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

/// The repository root, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// True when `actual` has everything `expected` has: objects may carry more keys, arrays must match element by element.
func matches(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
    switch (actual, expected) {
    case (.object(let a), .object(let e)):
        return e.allSatisfy { key, value in a[key].map { matches($0, value) } ?? false }
    case (.array(let a), .array(let e)):
        return a.count == e.count && zip(a, e).allSatisfy(matches)
    case (.number(let a), .number(let e)):
        return abs(a - e) <= 1e-9 * max(1, abs(e))
    default:
        return actual == expected
    }
}

extension EndToEnd {
    @Suite("Protocol/examples replayed against a real server", .serialized)
    struct ExampleTests {
        static let files = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("Protocol/examples").path))?
            .filter { $0.hasSuffix(".json") }.sorted() ?? []

        @Test("Every example exchange holds", arguments: files)
        func replay(file: String) throws {
            let data = try Data(contentsOf: packageRoot.appendingPathComponent("Protocol/examples/\(file)"))
            let example = try JSONValue.parse(Array(data))
            guard case .array(let steps)? = example["steps"] else { Issue.record("\(file) has no steps"); return }
            let server = try ServerProcess()
            var clients: [String: TestClient] = [:]
            for (n, step) in steps.enumerated() {
                guard case .string(let name)? = step["client"] else { Issue.record("\(file) step \(n) names no client"); return }
                if case .string(let path)? = step["connect"] {
                    let parts = path.split(separator: "?", maxSplits: 1).map(String.init)
                    clients[name] = try TestClient(server.url(parts[0], parts.count > 1 ? parts[1] : ""))
                    continue
                }
                guard let client = clients[name] else { Issue.record("\(file) step \(n): \(name) is not connected"); return }
                if let message = step["send"] {
                    var w = JSONWriter()
                    w.value(message)
                    client.socket.send(w.bytes)
                } else if case .string(let text)? = step["send_text"] {
                    client.send(text)
                } else if let expected = step["expect"] {
                    guard client.expect("\(file) step \(n)", { matches($0, expected) }) != nil else { return }
                }
            }
        }
    }
}
