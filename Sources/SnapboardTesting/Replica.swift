import SnapboardProtocol

/// The canvas as a client sees it, built only from welcome and delta messages.
public struct Replica {
    public var seq = -1
    public var shapes: [String: JSONValue] = [:]
    /// Committed deltas' seqs, in arrival order.
    public var committed: [Int] = []

    public mutating func apply(_ message: JSONValue) {
        switch message["type"] {
        case .string("welcome")?:
            if message["resumed"] != .bool(true) { shapes.removeAll() }
            if case .array(let list)? = message["shapes"] { for s in list { if case .string(let id)? = s["id"] { shapes[id] = s } } }
            if case .number(let n)? = message["seq"] { seq = Int(n) }
        case .string("delta")?:
            if message["cleared"] == .bool(true) { shapes.removeAll() }
            if case .array(let removed)? = message["removed"] { for case .string(let id) in removed { shapes[id] = nil } }
            if case .array(let list)? = message["shapes"] { for s in list { if case .string(let id)? = s["id"] { shapes[id] = s } } }
            if case .number(let n)? = message["seq"] {
                seq = Int(n)
                if message["live"] == .bool(false) { committed.append(Int(n)) }
            }
        default:
            break
        }
    }

    public init() {}

    public init(_ messages: [JSONValue]) {
        for m in messages { apply(m) }
    }

    /// The shapes of a `GET /v1/canvases/{id}` body, by id.
    public static func shapes(ofSnapshot body: String) throws -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        if case .array(let list)? = try JSONValue.parse(Array(body.utf8))["shapes"] {
            for s in list { if case .string(let id)? = s["id"] { out[id] = s } }
        }
        return out
    }
}
