import SnapboardProtocol

/// What an HTTP path names, and the methods it answers.
enum APIEndpoint: Equatable {
    /// `/v1/canvases`: list (GET) and create (POST).
    case canvases
    /// `/v1/canvases/{id}`: read (GET), create with this id (POST), import (PUT), delete (DELETE).
    case canvas(String)
    /// `/v1/canvases/{id}/history`: the op log (GET).
    case history(String)
    /// `/v1/canvases/{id}/export`: the canvas as `snapboard-server export` prints it, which PUT takes (GET).
    case export(String)
    /// `/v1/canvases/{id}/access`: what the presented token may do on the canvas (GET); reads no storage.
    case access(String)
    /// `/v1/tokens`: mints an access token (POST), on a server with a token secret.
    case tokens
    /// `/v1/canvases/…` with a malformed canvas id (400).
    case malformed(String)
    /// Anything else: `/healthz`, `/metrics`, the browser client, or a 404.
    case other

    init(path: String) {
        if path == "/v1/tokens" {
            self = .tokens
            return
        }
        guard path.hasPrefix(CanvasAddress.prefix) || path == "/v1/canvases" else {
            self = .other
            return
        }
        if path == "/v1/canvases" {
            self = .canvases
            return
        }
        var rest = Substring(path.dropFirst(CanvasAddress.prefix.count))
        let part = ["/history", "/export", "/access"].first { rest.hasSuffix($0) }
        if let part { rest = rest.dropLast(part.count) }
        guard CanvasAddress.isValidCanvasID(String(rest)) else {
            self = .malformed("canvas ids are 1–64 characters of [A-Za-z0-9_-]")
            return
        }
        switch part {
        case "/history": self = .history(String(rest))
        case "/export": self = .export(String(rest))
        case "/access": self = .access(String(rest))
        default: self = .canvas(String(rest))
        }
    }

    /// The methods the path answers, for the `Allow` of a 405.
    var methods: [String] {
        switch self {
        case .canvases: ["GET", "POST"]
        case .canvas: ["GET", "POST", "PUT", "DELETE"]
        case .history, .export, .access, .malformed, .other: ["GET"]
        case .tokens: ["POST"]
        }
    }

    /// The canvas the path names, whose token a reader needs, and whose shard answers. An access check
    /// names a canvas but reads nothing of it: any shard answers it, with its own checks (`answerAccess`).
    var canvas: String? {
        switch self {
        case .canvas(let id), .history(let id), .export(let id): id
        case .canvases, .access, .tokens, .malformed, .other: nil
        }
    }
}
