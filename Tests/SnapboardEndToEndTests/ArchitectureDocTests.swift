import Foundation
import SnapboardTesting
import Testing

extension EndToEnd {
    /// docs/architecture.md draws the package's targets; these tests keep the drawing and Package.swift
    /// in step, so a target added, renamed or removed shows up in the picture too.
    @Suite("The architecture picture matches Package.swift")
    struct ArchitectureDocTests {
        /// Every target Package.swift declares, with whether it is a test target.
        static func packageTargets() throws -> [(name: String, isTest: Bool)] {
            let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
            return manifest.matches(of: #/\.(target|executableTarget|systemLibrary|testTarget)\(\s*name:\s*"([^"]+)"/#)
                .map { (name: String($0.output.2), isTest: $0.output.1 == "testTarget") }
        }

        /// The names in the first fenced block of docs/architecture.md's "## Targets" section that look like
        /// target names: `Snapboard…` and `CSnapboard…` modules, `CLib…` system libraries, `snapboard-…`
        /// executables.
        static func drawnTargets() throws -> Set<String> {
            let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
            guard let section = text.components(separatedBy: "\n## Targets\n").dropFirst().first,
                  let block = section.components(separatedBy: "```").dropFirst().first else { return [] }
            return Set(block.matches(of: #/\b(C?Snapboard[A-Za-z]*|CLib[A-Za-z]+|snapboard-[a-z]+)\b/#).map { String($0.output.1) })
        }

        @Test("Every target of Package.swift except the test targets is in the diagram of docs/architecture.md")
        func everyTargetDrawn() throws {
            let targets = try Self.packageTargets()
            #expect(targets.count >= 20, "Package.swift: \(targets.map(\.name))")
            let drawn = try Self.drawnTargets()
            let undrawn = targets.filter { !$0.isTest && !drawn.contains($0.name) }.map(\.name)
            #expect(undrawn.isEmpty, "in Package.swift but not in docs/architecture.md's diagram: \(undrawn)")
        }

        @Test("Every target the diagram of docs/architecture.md names exists in Package.swift")
        func everyDrawnTargetExists() throws {
            let names = Set(try Self.packageTargets().map(\.name))
            let drawn = try Self.drawnTargets()
            #expect(drawn.count >= 20, "drawn: \(drawn.sorted())")
            let unknown = drawn.subtracting(names).sorted()
            #expect(unknown.isEmpty, "in docs/architecture.md's diagram but not in Package.swift: \(unknown)")
        }
    }
}
