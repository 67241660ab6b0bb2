/// Where a WebSocket connects: `/v1/canvases/{canvas}` with optional `client`, `since`, `name` and `zoom`.
public struct CanvasAddress: Hashable, Sendable {
    public var canvas: String
    /// A stable client id, which makes op ids exactly-once across reconnects.
    public var client: String?
    /// The last seq the client holds, to resume from.
    public var since: Int?
    /// The run of history (the welcome's `epoch`) that `since` belongs to.
    public var epoch: String?
    public var name: String?
    public var zoom: Double
    /// `editor` (the default) or `viewer`, whose ops are refused with `forbidden`.
    public var role: String = "editor"
    /// The protocol revision the client speaks: 2 and later get presence as changes, without the
    /// session list on every join and leave (P11).
    public var revision = 1
    /// An access token (a JWT), for servers that require one and clients that cannot send an
    /// `Authorization` header (browsers).
    public var token: String?

    /// What a request path means.
    public enum Route: Hashable, Sendable {
        case canvas(CanvasAddress)
        /// `/v1/canvases/{id}` with a malformed id or query (HTTP 400).
        case badRequest(String)
        /// Anything else (HTTP 404).
        case notFound
    }

    public static let prefix = "/v1/canvases/"

    /// Parses a request path and a raw query (`query` without its `?`, still percent-encoded).
    public static func route(path: String, query: String?) -> Route {
        var arguments: [(String, String)] = []
        for pair in (query ?? "").split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = percentDecoded(parts[0]), let value = percentDecoded(parts.count > 1 ? parts[1] : "") else {
                return .badRequest("bad percent-encoding")
            }
            arguments.append((key, value))
        }
        return route(path: path, arguments: arguments)
    }

    /// Parses a request path and query arguments already percent-decoded once (libwebsockets decodes each
    /// `key=value` of a request's query), as `key=value` strings. A value is never decoded a second time.
    public static func route(path: String, decodedArguments: [String]) -> Route {
        route(path: path, arguments: decodedArguments.map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        })
    }

    /// The longest query value taken; a longer one is refused (HTTP 400), never cut or skipped.
    public static let maxValueBytes = 4096

    static func route(path: String, arguments: [(String, String)]) -> Route {
        guard path.hasPrefix(prefix) else { return .notFound }
        let id = String(path.dropFirst(prefix.count))
        guard isValidCanvasID(id) else { return .badRequest("canvas ids are 1–64 characters of [A-Za-z0-9_-]") }
        var address = CanvasAddress(canvas: id, zoom: 1)
        for (key, value) in arguments {
            guard value.utf8.count <= maxValueBytes else { return .badRequest("query values are limited to \(maxValueBytes) bytes") }
            guard !value.utf8.contains(0) else { return .badRequest("query values may not hold NUL") }
            switch key {
            case "client":
                guard !value.isEmpty, value.count <= 64 else { return .badRequest("client must be 1–64 characters") }
                address.client = value
            case "since":
                guard let n = Int(value), n >= 0 else { return .badRequest("since must be a seq (a whole number ≥ 0)") }
                address.since = n
            case "epoch":
                guard isValidCanvasID(value) else { return .badRequest("epoch must be 1–64 characters of [A-Za-z0-9_-]") }
                address.epoch = value
            case "name":
                address.name = DisplayName.clean(value)
            case "role":
                guard value == "editor" || value == "viewer" else { return .badRequest("role is editor or viewer") }
                address.role = value
            case "revision":
                guard let n = Int(value), n >= 0 else { return .badRequest("revision must be a whole number ≥ 0") }
                address.revision = n
            case "token":
                address.token = value
            case "zoom":
                guard let z = Double(value), z.isFinite, ClientMessage.zoomRange.contains(z) else { return .badRequest("zoom must be in 0.01...100") }
                address.zoom = z
            default:
                break  // Unknown parameters are ignored, so newer clients can add some.
            }
        }
        return .canvas(address)
    }

    /// True when `id` is 1–64 characters of `[A-Za-z0-9_-]`: the same rule as shape ids.
    public static func isValidCanvasID(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= 64 && bytes.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D
        }
    }

    static func percentDecoded(_ s: Substring) -> String? {
        var out: [UInt8] = []
        var bytes = s.utf8.makeIterator()
        while let c = bytes.next() {
            switch c {
            case UInt8(ascii: "+"): out.append(0x20)
            case UInt8(ascii: "%"):
                guard let h = bytes.next(), let l = bytes.next(), let v = UInt8(String(decoding: [h, l], as: UTF8.self), radix: 16) else {
                    return nil
                }
                out.append(v)
            default: out.append(c)
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}
