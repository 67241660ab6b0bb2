import Foundation
import SnapboardFuzz
import Testing

/// The fuzz harness (`make fuzz`) as a test: every input the fuzzer ever broke an invariant with
/// (`Tests/Fuzz/regressions/`), and the seeds it starts from, must run through it cleanly.
@Suite("Fuzz harness: regressions and seeds")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every message a client sends in `Protocol/examples`, one per line, by example.
    static func seeds() throws -> [String: [UInt8]] {
        let folder = root.appendingPathComponent("Protocol/examples")
        var seeds: [String: [UInt8]] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".json") {
            let example = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(file))) as? [String: Any]
            let sends = (example?["steps"] as? [[String: Any]] ?? []).compactMap { $0["send"] }
            let lines = try sends.map { try JSONSerialization.data(withJSONObject: $0) + Data("\n".utf8) }
            seeds[file] = Array(lines.reduce(Data(), +))
        }
        return seeds
    }

    @Test("Every example's messages, as one input")
    func examples() throws {
        let seeds = try Self.seeds()
        #expect(seeds.count >= 8)
        for (_, bytes) in seeds.sorted(by: { $0.key < $1.key }) { bytes.withUnsafeBytes(FuzzHarness.run) }
    }

    @Test("Every input in Tests/Fuzz/regressions")
    func regressions() throws {
        let folder = Self.root.appendingPathComponent("Tests/Fuzz/regressions")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }
        for file in files.sorted() {
            try Data(contentsOf: folder.appendingPathComponent(file)).withUnsafeBytes(FuzzHarness.run)
        }
    }

    @Test("A drag whose messages arrive out of shape: updates before a begin, an end twice, bad numbers")
    func malformedDrag() {
        let input = """
            {"type":"op","id":"a","op":"snap","x":100,"y":100,"shapeId":"s"}
            {"type":"op","id":"b","op":"move","shape":"s","phase":"update","dx":5,"dy":5}
            {"type":"op","id":"c","op":"move","shape":"s","phase":"begin"}
            {"type":"op","id":"d","op":"move","shape":"s","phase":"update","dx":1e308,"dy":-1e308}
            {"type":"op","id":"e","op":"move","shape":"s","phase":"end","dx":3,"dy":4}
            {"type":"op","id":"f","op":"move","shape":"s","phase":"end","dx":3,"dy":4}
            {"type":"op","id":"g","op":"scale","shape":"s","factor":0,"ax":0,"ay":0}
            {"type":"op","id":"h","op":"undo"}

            """
        Array(input.utf8).withUnsafeBytes(FuzzHarness.run)
    }
}
