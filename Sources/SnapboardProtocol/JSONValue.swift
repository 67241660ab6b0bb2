/// A parsed JSON value. Snapboard parses its own JSON so that every malformed input maps to a documented
/// error instead of a crash or an opaque Foundation error, numbers too large for a double become infinities
/// (and are then refused as `not_finite`), and the hot path avoids Foundation's object bridging.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { fields[key] } else { nil }
    }

    /// An array's element, or nil when this is not an array or `index` is out of range.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let items) = self, items.indices.contains(index) { items[index] } else { nil }
    }
}

extension JSONValue {
    /// Nesting deeper than this is refused, so hostile input cannot exhaust the stack.
    public static let maxDepth = 32

    /// Parses one JSON value that fills `bytes` (surrounding white space allowed).
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> JSONValue in
            var parser = JSONParser(bytes: buffer)
            let value = try parser.value(depth: 0)
            parser.skipSpace()
            guard parser.index == buffer.count else { throw parser.error("trailing characters") }
            return value
        }
    }
}
