import CLibWebSockets
import SnapboardLWS

/// Where a request ends must be beyond doubt, for the server and for every proxy in front of it.
///
/// libwebsockets 4.1 knows only `Content-Length`: it ignores `Transfer-Encoding`, joins repeated headers
/// with commas (and reads `5,5` as 5), and reads the bytes after a GET's head as the next request. A proxy
/// that honours `Transfer-Encoding`, or the other `Content-Length`, then disagrees with it about where a
/// request ends, and a body becomes a request of its own (request smuggling). So a request whose framing is
/// ambiguous is answered 400 `bad_framing` and its connection closed, before anything else is decided.
extension Server {
    /// Why the framing of the request on `socket` is refused, or nil. A GET, a HEAD or an upgrade may carry
    /// no body (a DELETE's is refused once its method is known to be allowed: `request`).
    func framingError(_ socket: LWSSocket, method: String, upgrade: Bool) -> String? {
        // libwebsockets 4.1 percent-decodes the URL as it parses the request line, and a decoded CR or LF
        // (`%0D`, `%0A`) ends the line there: the rest of the query and the HTTP version are lost, and the
        // rest of the line is read as a header. A request line without its version was cut short so.
        if lws_hdr_total_length(socket.wsi, WSI_TOKEN_HTTP) == 0 {
            return "the request line was cut short: a percent-encoded line break (%0A or %0D) is not accepted in a URL"
        }
        if lws_hdr_total_length(socket.wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0 {
            return "Transfer-Encoding is not accepted: send a body with one Content-Length"
        }
        guard let declared = socket.header(WSI_TOKEN_HTTP_CONTENT_LENGTH) else { return nil }
        // Two headers arrive joined (`5,5`); a sign, a space or a second value is not one length.
        guard let length = Self.contentLength(declared) else {
            return "Content-Length must be one whole number, sent once"
        }
        if length > 0 && (upgrade || method == "GET" || method == "HEAD") {
            return upgrade ? "an upgrade takes no body" : "a \(method) takes no body"
        }
        return nil
    }

    /// One `Content-Length` value: 1–18 ASCII digits, nothing else.
    static func contentLength(_ value: String) -> Int? {
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= 18, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(value)
    }

    /// The media type a POST or PUT body must declare: JSON only, so that a cross-site HTML form (which can
    /// send only form encodings and `text/plain`) cannot change anything.
    static func isJSONContentType(_ value: String?) -> Bool {
        guard let value else { return false }
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let type = value.prefix { $0 != ";" }.drop(while: blank).reversed().drop(while: blank).reversed()
        return String(type).lowercased() == "application/json"
    }
}
