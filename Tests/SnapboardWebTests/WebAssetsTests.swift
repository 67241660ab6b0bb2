import Foundation
import Testing

@testable import SnapboardWeb

/// WebAssets over the files in Sources/SnapboardWeb, as `--web-root Sources/SnapboardWeb` serves them.
@Suite("WebAssets: the browser client's paths, and the files behind them")
struct WebAssetsTests {
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/SnapboardWeb")
    let assets = WebAssets(directory: Self.source)

    func file(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: Self.source.appendingPathComponent(path)))
    }

    /// The JavaScript files of lib/ and page/, as "folder/name".
    static func scripts() throws -> [String] {
        try WebAssets.folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: source.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix(".js") }.map { "\(folder)/\($0)" }
        }.sorted()
    }

    @Test("Pages at / and /c/{canvas}, the folders under /web/, and the library where apps imported it from")
    func paths() throws {
        #expect(assets.asset(for: "/")?.body == (try file("page/index.html")))
        #expect(assets.asset(for: "/c/team-retro")?.body == (try file("page/board.html")))
        #expect(assets.asset(for: "/web/lib/index.js")?.body == (try file("lib/index.js")))
        #expect(assets.asset(for: "/web/page/board.js")?.body == (try file("page/board.js")))
        #expect(assets.asset(for: "/web/snapboard.js")?.body == (try file("lib/index.js")))
        #expect(assets.asset(for: "/web/geometry.js")?.body == (try file("lib/geometry.js")))
        #expect(assets.asset(for: "/web/page/style.css")?.contentType == "text/css; charset=utf-8")
        #expect(assets.asset(for: "/c/team-retro")?.headers.contains { $0.0 == "Content-Security-Policy" } == true)
        for path in ["/c/not valid", "/web/", "/web/.hidden", "/web/lib/", "/web/lib/../page/board.js", "/web/lib/x/index.js",
                     "/web/other/index.js", "/web/page", "/web/WebAssets.swift", "/nowhere"] {
            #expect(assets.asset(for: path) == nil, "\(path)")
        }
    }

    @Test("Every relative import names a file that is served, and the library never imports the page")
    func imports() throws {
        let specifier = /from '(\.{1,2}\/[^']+)'/
        for script in try Self.scripts() {
            let text = String(decoding: try file(script), as: UTF8.self)
            let folder = String(script.split(separator: "/")[0])
            for match in text.matches(of: specifier) {
                let url = URL(string: "/web/\(script)")!.deletingLastPathComponent().appendingPathComponent(String(match.1)).standardized
                #expect(assets.asset(for: url.path) != nil, "\(script) imports \(match.1)")
                if folder == "lib" { #expect(!url.path.hasPrefix("/web/page/"), "\(script) imports \(match.1)") }
            }
        }
        for page in ["page/index.html", "page/board.html"] {
            let text = String(decoding: try file(page), as: UTF8.self)
            for match in text.matches(of: /(?:src|href)="(\/web\/[^"]+)"/) {
                #expect(assets.asset(for: String(match.1)) != nil, "\(page) names \(match.1)")
            }
        }
    }

    @Test("No JavaScript file is over 300 lines")
    func sizes() throws {
        for script in try Self.scripts() {
            let lines = String(decoding: try file(script), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).count - 1
            #expect(lines <= 300, "\(script) has \(lines) lines")
        }
    }
}
