/// The one spelling of a request path that Snapboard accepts, as it arrives on the wire.
///
/// Every path Snapboard serves is plain: `/v1/canvases/{id}` (ids are `[A-Za-z0-9_-]`), `/healthz`, the
/// browser client's files. So the canonical spelling of a path is the path itself, and any other spelling
/// (`//`, a `.` or `..` segment, a percent-encoded character, `%2F`, `;`, `+`) names, once decoded, a path
/// that a proxy hashing the raw text would place elsewhere. Such a path is refused (400
/// `non_canonical_path`), never decoded into a canvas id: an id is decoded once, from a canonical path.
public enum RequestPath {
    /// True when `raw` (a request target's path, without its query) is canonical: a `/`, then segments of
    /// unreserved characters (`A–Z a–z 0–9 - . _ ~`), none empty, `.` or `..`; a trailing `/` is allowed.
    public static func isCanonical<Bytes: Collection>(_ raw: Bytes) -> Bool where Bytes.Element == UInt8 {
        guard raw.first == UInt8(ascii: "/") else { return false }
        let segments = raw.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (i, segment) in segments.enumerated() {
            if segment.isEmpty {
                // Only the path `/` itself, or a trailing slash, has an empty segment.
                guard i == segments.count - 1 else { return false }
                continue
            }
            guard segment.allSatisfy(isUnreserved), !segment.elementsEqual(".".utf8), !segment.elementsEqual("..".utf8) else {
                return false
            }
        }
        return true
    }

    public static func isCanonical(_ raw: String) -> Bool { isCanonical(raw.utf8) }

    /// RFC 3986's unreserved characters.
    static func isUnreserved(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
            || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "~")
    }
}
