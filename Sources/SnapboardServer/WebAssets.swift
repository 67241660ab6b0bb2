import Foundation
import SnapboardCore
import SnapboardProtocol

/// The browser client's files (`Web/`, shipped as the target's resources beside the binary), read once at
/// start and served from memory: `/` the start page, `/c/{canvas}` the whiteboard, `/web/{file}` the rest.
struct WebAssets: Sendable {
    struct Asset: Sendable {
        let body: [UInt8]
        let contentType: String
        /// A strong validator: a hash of the bytes, so a browser revalidates cheaply and never keeps a stale file.
        let etag: String
        /// What every response carries besides the type and length: the validator, and on pages the policy.
        let headers: [(String, String)]

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
        func isCurrent(ifNoneMatch: String?) -> Bool {
            ifNoneMatch?.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag } ?? false
        }
    }

    private let files: [String: Asset]

    /// Pages may run only this server's scripts and styles and talk only to this server.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// Reads every file of `directory` (not recursive).
    init(directory: URL) {
        var files: [String: Asset] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names {
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else { continue }
            let body = [UInt8](data)
            files[name] = Asset(body: body, contentType: Self.contentType(of: name))
        }
        self.files = files
    }

    /// Where SwiftPM puts the target's resources: a folder beside the executable (`make release`, `swift
    /// run`, and the Docker image, which copies it). Looked up by hand rather than through `Bundle.module`,
    /// which ends the process when the folder is missing: a binary copied alone still serves everything else.
    static var shippedDirectory: URL {
        Bundle.main.bundleURL.appendingPathComponent("Snapboard_SnapboardServer.resources/Web")
    }

    var isEmpty: Bool { files.isEmpty }

    /// The asset a path names, or nil: `/` and `/c/{canvas}` (a valid canvas id) are pages, `/web/{name}` a file.
    func asset(for path: String) -> Asset? {
        if path == "/" { return files["index.html"] }
        if path.hasPrefix("/c/") { return CanvasAddress.isValidCanvasID(String(path.dropFirst(3))) ? files["board.html"] : nil }
        guard path.hasPrefix("/web/") else { return nil }
        let name = String(path.dropFirst(5))
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else { return nil }
        return files[name]
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    /// `"` + 64-bit FNV-1a of the bytes in hex + `"`.
    static func etag(_ bytes: [UInt8]) -> String {
        "\"" + String(SeededGenerator.fnv1a(bytes), radix: 16) + "\""
    }
}
