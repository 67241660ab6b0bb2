import SnapboardProtocol

/// An HTTP response in progress: its headers go in one writable callback, its body in the next.
struct HTTPResponse {
    var status: Int
    var contentType: String
    var body: Frame
    /// Headers beyond the status, type and length, as name/value pairs.
    var headers: [(String, String)]
    var headersSent = false

    init(_ status: Int, _ contentType: String, _ body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = Frame(payload: body)
        self.headers = headers
    }

    /// The same response with `Retry-After: seconds`, for a refusal that passes.
    func retrying(after seconds: Int) -> HTTPResponse {
        var response = self
        response.headers.append(("Retry-After", String(seconds)))
        return response
    }

    /// A JSON error body with a stable `error` code and, for an access refusal, a stable `reason`.
    static func error(_ status: Int, _ code: String, _ message: String? = nil, reason: String? = nil) -> HTTPResponse {
        var w = JSONWriter()
        w.beginObject()
        w.string("error", code)
        if let reason { w.string("reason", reason) }
        if let message { w.string("message", message) }
        w.endObject()
        return HTTPResponse(status, "application/json", w.bytes)
    }
}
