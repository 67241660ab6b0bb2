import Foundation
import Testing

extension EndToEnd {
    @Suite("README commands run as written", .serialized)
    struct DocumentationTests {
        /// The shell commands in the fenced blocks of one README section.
        static func commands(inSection title: String) throws -> [String] {
            let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
            guard let start = readme.range(of: "\n## \(title)\n") else { return [] }
            let rest = readme[start.upperBound...]
            let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
            var commands: [String] = []
            var inBlock = false
            for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("```") { inBlock.toggle(); continue }
                if inBlock, !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix("#") { commands.append(String(line)) }
            }
            return commands
        }

        @Test("Every command in the README's terminal client section works against a running server")
        func clientSection() throws {
            let commands = try Self.commands(inSection: "Terminal client")
            #expect(commands.count >= 4)
            let server = try ServerProcess()
            let client = serverBinary.deletingLastPathComponent().appendingPathComponent("snapboard-client").path
            for command in commands {
                // The binary this suite built instead of the release one, against this test's server.
                let line = command.replacingOccurrences(of: ".build/release/snapboard-client", with: client)
                    .replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(server.port)")
                let shell = Process()
                shell.executableURL = URL(fileURLWithPath: "/bin/sh")
                shell.arguments = ["-c", line]
                shell.currentDirectoryURL = packageRoot
                let output = Pipe()
                shell.standardOutput = output
                shell.standardError = output
                try shell.run()
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                shell.waitUntilExit()
                #expect(shell.terminationStatus == 0, "\(command)\n\(text.suffix(400))")
            }
            let canvas = try httpGet(port: server.port, "/v1/canvases/demo").body
            #expect(canvas.contains(#""id":"star""#) && canvas.contains("fractal"))
        }
    }
}
