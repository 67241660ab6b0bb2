import Foundation
import SnapboardTesting
import Testing

extension EndToEnd {
    @Suite("Documented commands run as written, and the README's links lead somewhere", .serialized)
    struct DocumentationTests {
        /// The shell commands in the fenced blocks of one document (a path from the package root).
        static func commands(in document: String) throws -> [String] {
            let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
            var commands: [String] = []
            var inBlock = false
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("```") { inBlock.toggle(); continue }
                if inBlock, !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix("#") { commands.append(String(line)) }
            }
            return commands
        }

        @Test("Every command in docs/terminal-client.md works against a running server")
        func clientSection() throws {
            let commands = try Self.commands(in: "docs/terminal-client.md")
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

        /// The targets of the Markdown links in a document that point inside the repository (no scheme):
        /// the path, and the `#anchor` if there is one.
        static func localLinks(in document: String) throws -> [(path: String, anchor: String?)] {
            let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
            return text.matches(of: #/\]\(([^)\s]+)\)/#).map { String($0.output.1) }
                .filter { !$0.contains("://") && !$0.hasPrefix("mailto:") }
                .map { link -> (path: String, anchor: String?) in
                    let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                    return (String(parts[0]), parts.count > 1 ? String(parts[1]) : nil)
                }
        }

        /// The anchors GitHub gives a Markdown file's headings: lower case, spaces as hyphens, and only
        /// letters, digits, hyphens and underscores kept.
        static func anchors(of file: URL) throws -> Set<String> {
            let text = try String(contentsOf: file, encoding: .utf8)
            var anchors: Set<String> = []
            var inBlock = false
            for line in text.split(separator: "\n") {
                if line.hasPrefix("```") { inBlock.toggle(); continue }
                guard !inBlock, line.hasPrefix("#") else { continue }
                let title = line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces).lowercased()
                anchors.insert(String(title.compactMap { c -> Character? in
                    if c == " " { return "-" }
                    return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
                }))
            }
            return anchors
        }

        /// Whether a link from a document in `folder` leads to a file or folder that exists, and to a
        /// heading of that file when it names one.
        static func resolves(_ link: (path: String, anchor: String?), from folder: URL, in document: URL) throws -> Bool {
            let target = link.path.isEmpty ? document : folder.appendingPathComponent(link.path).standardizedFileURL
            guard FileManager.default.fileExists(atPath: target.path) else { return false }
            guard let anchor = link.anchor, target.pathExtension == "md" else { return true }
            return try anchors(of: target).contains(anchor)
        }

        @Test("Every link of the README into the repository leads to a file, folder or heading that exists, and it links every page of docs/")
        func readmeLinks() throws {
            let readme = packageRoot.appendingPathComponent("README.md")
            let links = try Self.localLinks(in: "README.md")
            #expect(links.count >= 10)
            for link in links {
                #expect(try Self.resolves(link, from: packageRoot, in: readme), "README.md links \(link.path)#\(link.anchor ?? "")")
            }
            let pages = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("docs").path)
                .filter { $0.hasSuffix(".md") }
            #expect(pages.count >= 10)
            for page in pages { #expect(links.contains { $0.path == "docs/\(page)" }, "README.md does not link docs/\(page)") }
        }

        @Test("Every link in docs/ leads to a file, folder or heading that exists")
        func docsLinks() throws {
            let docs = packageRoot.appendingPathComponent("docs")
            let files = try FileManager.default.subpathsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }
            #expect(files.count >= 10)
            for file in files {
                let document = docs.appendingPathComponent(file)
                for link in try Self.localLinks(in: "docs/\(file)") {
                    #expect(try Self.resolves(link, from: document.deletingLastPathComponent(), in: document),
                            "docs/\(file) links \(link.path)#\(link.anchor ?? "")")
                }
            }
        }
    }
}
