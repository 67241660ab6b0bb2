import CLibWebSockets
import SnapboardProtocol

/// One libwebsockets connection (`struct lws *`) and the calls Snapboard makes on it. Only the service
/// thread may use it, like the handle it wraps; hence no `Sendable`.
public struct LWSSocket {
    public let wsi: OpaquePointer

    public init(_ wsi: OpaquePointer) { self.wsi = wsi }

    /// A key for tables of per-socket state.
    public var key: Int { Int(bitPattern: UnsafeRawPointer(wsi)) }

    /// Asks for a writable callback.
    public func requestWritable() { lws_callback_on_writable(wsi) }

    /// True while part of the last write waits in libwebsockets' own buffer for the socket: nothing else
    /// may be written until a writable callback has sent it.
    public var hasPartialWrite: Bool { lws_partial_buffered(wsi) != 0 }

    /// Closes the connection at the next turn of the loop, without a close frame: what a failed write
    /// outside a callback does instead of returning -1.
    public func drop() { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC) }

    public var fd: Int32 { lws_get_socket_fd(wsi) }

    /// The peer's IP address as text (`127.0.0.1`), or an empty string when libwebsockets cannot tell.
    public var peerAddress: String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What was handed to `LWSContext.connect` as `opaque`; nil once `forgetOpaque()` ran.
    public var opaque: UnsafeMutableRawPointer? { lws_get_opaque_user_data(wsi) }

    /// Makes later callbacks on this socket find no owner.
    public func forgetOpaque() { lws_set_opaque_user_data(wsi, nil) }

    // MARK: Receiving

    public var isFirstFragment: Bool { lws_is_first_fragment(wsi) != 0 }
    public var isFinalFragment: Bool { lws_is_final_fragment(wsi) != 0 }
    public var isBinary: Bool { lws_frame_is_binary(wsi) != 0 }

    /// Feeds what a receive callback brought to `assembler`.
    public func receive(_ input: UnsafeMutableRawPointer?, _ len: Int, into assembler: inout FrameAssembler) -> FrameAssembler.Assembled? {
        assembler.append(UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : len),
                         first: isFirstFragment, last: isFinalFragment, binary: isBinary)
    }

    // MARK: Writing: one write per writable callback, or one at once when nothing is half sent

    /// Writes `frame` (or `range` of its payload) in place, as a WebSocket message or fragment. False when
    /// the connection is broken.
    public func write(_ frame: Frame, range: Range<Int>? = nil, mode: lws_write_protocol = LWS_WRITE_TEXT) -> Bool {
        let part = range ?? 0..<frame.count
        let written = frame.withUnsafeMutablePayload { start, _ in lws_write(wsi, start + part.lowerBound, part.count, mode) }
        return written >= part.count
    }

    /// Closes with `code` and `reason` once no frame is half written, from a writable callback, and returns
    /// what that callback must return: -1 when the close went out, 0 when it waits for the next writable
    /// callback. (With part of a frame still buffered, libwebsockets 4.1 flushes it and then drops the
    /// connection without the close frame.)
    public func closeWhenFlushed(code: UInt16, reason: String) -> Int32 {
        if lws_partial_buffered(wsi) != 0 {
            requestWritable()
            return 0
        }
        close(code: code, reason: reason)
        return -1
    }

    /// Drops the connection if it is still open `seconds` from now, without a close frame: the bound on
    /// how long a close may wait for a peer that does not read.
    public func dropAfter(seconds: Int) {
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, Int32(max(1, seconds)))
    }

    /// Sends a close frame with `code` and `reason` (cut to 120 bytes); the callback must then return -1.
    public func close(code: UInt16, reason: String) {
        var bytes = Array(reason.utf8.prefix(120))
        lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &bytes, bytes.count)
    }

    /// The peer's close code and reason, from a `WS_PEER_INITIATED_CLOSE` callback's payload.
    public static func peerClose(_ input: UnsafeMutableRawPointer?, _ len: Int) -> (code: UInt16, reason: String)? {
        guard let input, len >= 2 else { return nil }
        let bytes = UnsafeRawBufferPointer(start: input, count: len)
        return (UInt16(bytes[0]) << 8 | UInt16(bytes[1]), String(decoding: bytes.dropFirst(2), as: UTF8.self))
    }

    // MARK: HTTP

    /// Writes a response's status line and headers (`extra` as name/value pairs). False on failure.
    public func writeHeaders(status: Int, contentType: String, length: Int, extra: [(String, String)] = []) -> Bool {
        let headers = Frame(payload: repeatElement(0, count: 2048))
        return headers.withUnsafeMutablePayload { start, count in
            var p: UnsafeMutablePointer<UInt8>? = start
            let end = start + count - 1
            // The status line is ours: libwebsockets 4.1 would write `HTTP/1.0` before it has seen the
            // request's version, and no reason phrase for 201, 421 or 429.
            let line = Self.statusLine(status)
            guard line.withCString({ lws_add_http_header_by_name(wsi, nil, UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self),
                                                                  Int32(line.utf8.count), &p, end) }) == 0,
                  contentType.withCString({ lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE,
                                                                         UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self),
                                                                         Int32(contentType.utf8.count), &p, end) }) == 0,
                  lws_add_http_header_content_length(wsi, lws_filepos_t(length), &p, end) == 0
            else { return false }
            for (name, value) in extra {
                let added = (name.lowercased() + ":").withCString { n in
                    value.withCString { v in
                        lws_add_http_header_by_name(wsi, UnsafeRawPointer(n).assumingMemoryBound(to: UInt8.self),
                                                    UnsafeRawPointer(v).assumingMemoryBound(to: UInt8.self),
                                                    Int32(value.utf8.count), &p, end)
                    }
                }
                guard added == 0 else { return false }
            }
            return lws_finalize_write_http_header(wsi, start, &p, end) == 0
        }
    }

    /// Writes a whole response body and completes the transaction. False when the connection must close.
    public func writeBody(_ body: Frame) -> Bool {
        write(body, mode: LWS_WRITE_HTTP_FINAL) && lws_http_transaction_completed(wsi) == 0
    }

    /// Completes a response that has no body (a 304). False when the connection must close.
    public func completeTransaction() -> Bool {
        lws_http_transaction_completed(wsi) == 0
    }

    /// Writes raw bytes (an answer composed whole, on a socket libwebsockets no longer reads as HTTP).
    public func writeRaw(_ bytes: [UInt8]) -> Bool {
        // LWS_WRITE_RAW is a macro for LWS_WRITE_HTTP.
        write(Frame(payload: bytes), mode: LWS_WRITE_HTTP)
    }

    /// True on a TLS connection.
    public var isTLS: Bool { lws_is_ssl(wsi) != 0 }

    /// Refuses an upgrade with `status` and a JSON body (`{"error":code,"reason"?:…,"message":…}`), written whole in
    /// the callback; the callback must then return non-zero, which closes the connection.
    public func refuse(status: Int, _ message: String? = nil, code: String? = nil, reason: String? = nil) {
        var w = JSONWriter()
        w.beginObject()
        w.string("error", code ?? Self.errorCode(status))
        if let reason { w.string("reason", reason) }
        if let message { w.string("message", message) }
        w.endObject()
        let head = "\(Self.statusLine(status))\r\ncontent-type: application/json\r\ncontent-length: \(w.bytes.count)\r\n"
            + "connection: close\r\n\r\n"
        let response = Frame(payload: Array(head.utf8) + w.bytes)
        _ = response.withUnsafeMutablePayload { start, count in lws_write(wsi, start, count, LWS_WRITE_HTTP) }
    }

    /// `HTTP/1.1 429 Too Many Requests`: the status line of every answer, whatever version the request said.
    public static func statusLine(_ status: Int) -> String {
        "HTTP/1.1 \(status) \(reasonPhrase(status))"
    }

    /// The reason phrase of `status` (RFC 9110), for clients that insist on one.
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 507: "Insufficient Storage"
        default: status < 300 ? "OK" : status < 400 ? "Redirect" : status < 500 ? "Client Error" : "Server Error"
        }
    }

    /// The `error` code of a refused upgrade, after its status.
    static func errorCode(_ status: Int) -> String {
        switch status {
        case 400: "bad_request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not_found"
        case 421: "misdirected"
        case 429: "too_many_requests"
        case 503: "unavailable"
        default: "refused"
        }
    }

    private static let methods: [(lws_token_indexes, String)] = [
        (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_POST_URI, "POST"), (WSI_TOKEN_PUT_URI, "PUT"), (WSI_TOKEN_PATCH_URI, "PATCH"),
        (WSI_TOKEN_DELETE_URI, "DELETE"), (WSI_TOKEN_OPTIONS_URI, "OPTIONS"), (WSI_TOKEN_HEAD_URI, "HEAD"),
        (WSI_TOKEN_CONNECT, "CONNECT"),
    ]

    /// The request's method (`GET`, `POST`, …): libwebsockets keeps the path under a token named for it.
    public var method: String {
        // Never GET by default: a method no path lists is answered 405.
        Self.methods.first { lws_hdr_total_length(wsi, $0.0) > 0 }?.1 ?? "UNKNOWN"
    }

    /// The request's whole decoded path. libwebsockets 4.1 ends the path it hands to the HTTP callback at a
    /// `;` or `&` (it splits the path there as it splits a query), and keeps the rest as further parts, which
    /// this joins with commas: it differs from that path when the raw one held either.
    public var decodedPath: String? {
        Self.methods.first { lws_hdr_total_length(wsi, $0.0) > 0 }.flatMap { header($0.0) }
    }

    /// A request header, when present. A NUL in it (a request path with `%00`, which libwebsockets decodes)
    /// is kept, so that the path is refused instead of cut short at it.
    public func header(_ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        let copied = lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token)
        guard copied >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The query's `key=value` arguments, each already percent-decoded by libwebsockets (decode them no
    /// further). The buffer is as long as the whole query, so no argument is cut or skipped.
    public var decodedArguments: [String] {
        let total = Int(lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS))
        guard total > 0 else { return [] }
        var parts: [String] = []
        var buffer = [CChar](repeating: 0, count: total + 1)
        var i: Int32 = 0
        while case let n = lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, i), n >= 0 {
            // The length libwebsockets copied: a decoded %00 stays in, for the parser to refuse.
            if n > 0 { parts.append(String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
            i += 1
        }
        return parts
    }
}

@available(*, unavailable, message: "only the libwebsockets service thread may touch a socket")
extension LWSSocket: Sendable {}
