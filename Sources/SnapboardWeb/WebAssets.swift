import Foundation
import SnapboardCore
import SnapboardProtocol

/// The browser client's files, read once at start and served from memory. The folder holds `lib/`, the
/// JavaScript library (`lib/index.js` lists its public API), and `page/`, the start page and the
/// whiteboard, which import the library through the same files. Paths:
/// - `/` the start page (`page/index.html`), `/c/{canvas}` the whiteboard (`page/board.html`), and for a
///   `/c/…` path whose canvas name is not valid, a page that says so (`page/bad-canvas.html`, answered 404);
/// - `/web/lib/{file}` and `/web/page/{file}`: the files as they are in the folder;
/// - `/web/{file}`: the library's files without the folder, and `/web/snapboard.js` its entry
///   (`lib/index.js`), the addresses apps have imported the library from.
public struct WebAssets: Sendable {
    public struct Asset: Sendable {
        public let body: [UInt8]
        public let contentType: String
        /// A strong validator: a hash of the bytes, so a browser revalidates cheaply and never keeps a stale file.
        public let etag: String
        /// What every response carries besides the type and length: the validator, and on pages the policy.
        public let headers: [(String, String)]

        init(body: [UInt8], contentType: String) {
            self.body = body
            self.contentType = contentType
            etag = WebAssets.etag(body)
            var headers = [("ETag", etag), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff")]
            if contentType.hasPrefix("text/html") {
                headers += [("Content-Security-Policy", WebAssets.contentSecurityPolicy), ("Referrer-Policy", "no-referrer")]
            }
            self.headers = headers
        }

        /// True when an `If-None-Match` header names this version: the browser's copy is current.
        public func isCurrent(ifNoneMatch: String?) -> Bool {
            ifNoneMatch?.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag } ?? false
        }
    }

    private let files: [String: Asset]

    /// Pages may run only this server's scripts and styles and talk only to this server.
    public static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// The folders of the browser client, each served under `/web/{folder}/`.
    public static let folders = ["lib", "page"]

    /// Reads every file of `directory`'s `lib/` and `page/` folders (not their subfolders).
    public init(directory: URL) {
        var files: [String: Asset] = [:]
        for folder in Self.folders {
            let folderURL = directory.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folderURL.path)) ?? []
            for name in names {
                guard let data = FileManager.default.contents(atPath: folderURL.appendingPathComponent(name).path) else { continue }
                files["\(folder)/\(name)"] = Asset(body: [UInt8](data), contentType: Self.contentType(of: name))
            }
        }
        self.files = files
    }

    /// Where SwiftPM puts the target's resources: a folder beside the executable (`make release`, `swift
    /// run`, and the Docker image, which copies it). Looked up by hand rather than through `Bundle.module`,
    /// which ends the process when the folder is missing: a binary copied alone still serves everything else.
    public static var shippedDirectory: URL {
        Bundle.main.bundleURL.appendingPathComponent("Snapboard_SnapboardWeb.resources")
    }

    public var isEmpty: Bool { files.isEmpty }

    /// The page for a `/c/…` path whose canvas name is not valid, served with status 404; nil for any other
    /// path, or when the folder lacks the page.
    public func badCanvasPage(for path: String) -> Asset? {
        guard path.hasPrefix("/c/"), !CanvasAddress.isValidCanvasID(String(path.dropFirst(3))) else { return nil }
        return files["page/bad-canvas.html"]
    }

    /// The asset a path names, or nil: `/` and `/c/{canvas}` (a valid canvas id) are pages, `/web/…` a file.
    public func asset(for path: String) -> Asset? {
        if path == "/" { return files["page/index.html"] }
        if path.hasPrefix("/c/") { return CanvasAddress.isValidCanvasID(String(path.dropFirst(3))) ? files["page/board.html"] : nil }
        guard path.hasPrefix("/web/") else { return nil }
        let parts = path.dropFirst(5).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }) else { return nil }
        switch parts.count {
        case 1 where parts[0] == "snapboard.js": return files["lib/index.js"]
        case 1: return files["lib/\(parts[0])"]
        case 2: return files["\(parts[0])/\(parts[1])"]
        default: return nil
        }
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "json": "application/json"
        case "ts": "text/plain; charset=utf-8"
        case "md": "text/markdown; charset=utf-8"
        default: "application/octet-stream"
        }
    }

    /// `"` + 64-bit FNV-1a of the bytes in hex + `"`.
    static func etag(_ bytes: [UInt8]) -> String {
        "\"" + String(SeededGenerator.fnv1a(bytes), radix: 16) + "\""
    }
}
