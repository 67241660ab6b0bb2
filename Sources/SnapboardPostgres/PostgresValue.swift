import Foundation

/// A parameter sent to, or a column read from, PostgreSQL. Parameters go in binary with their type named,
/// so no value is ever spliced into SQL text; columns come back in binary and are decoded by their type.
public enum PostgresValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// `bigint` (also read from `integer` and `smallint`).
    case int(Int64)
    /// `double precision` (also read from `real`).
    case double(Double)
    /// `text` (also read from `varchar` and `name`).
    case text(String)
    /// `bytea`.
    case bytes([UInt8])
    /// `timestamptz`, as seconds since 1970 (read only).
    case timestamp(Double)
    /// `text[]`, `bigint[]` and `bytea[]` of one dimension, elements possibly NULL (parameters only): for
    /// inserting many rows in one statement through `unnest`.
    case textArray([String?])
    case intArray([Int64?])
    case bytesArray([[UInt8]?])

    /// PostgreSQL's type ids (`pg_type.oid`), stable across versions.
    enum OID {
        static let bool: UInt32 = 16
        static let bytea: UInt32 = 17
        static let name: UInt32 = 19
        static let int8: UInt32 = 20
        static let int2: UInt32 = 21
        static let int4: UInt32 = 23
        static let text: UInt32 = 25
        static let float4: UInt32 = 700
        static let float8: UInt32 = 701
        static let varchar: UInt32 = 1043
        static let timestamptz: UInt32 = 1184
        static let void: UInt32 = 2278
        static let byteaArray: UInt32 = 1001
        static let textArray: UInt32 = 1009
        static let int8Array: UInt32 = 1016
    }

    /// The type to name and the binary form to send; nil bytes for NULL.
    var parameter: (type: UInt32, bytes: [UInt8]?) {
        switch self {
        case .null: return (0, nil)
        case .bool(let v): return (OID.bool, [v ? 1 : 0])
        case .int(let v): return (OID.int8, Self.bigEndian(UInt64(bitPattern: v)))
        case .double(let v): return (OID.float8, Self.bigEndian(v.bitPattern))
        case .text(let v): return (OID.text, Array(v.utf8))
        case .bytes(let v): return (OID.bytea, v)
        case .timestamp(let v):
            let micros = Int64(((v - Self.postgresEpoch) * 1_000_000).rounded())
            return (OID.timestamptz, Self.bigEndian(UInt64(bitPattern: micros)))
        case .textArray(let v): return (OID.textArray, Self.array(element: OID.text, v.map { $0.map { Array($0.utf8) } }))
        case .intArray(let v): return (OID.int8Array, Self.array(element: OID.int8, v.map { $0.map { Self.bigEndian(UInt64(bitPattern: $0)) } }))
        case .bytesArray(let v): return (OID.byteaArray, Self.array(element: OID.bytea, v))
        }
    }

    /// 2000-01-01 00:00:00 UTC in seconds since 1970: PostgreSQL's timestamps count from there.
    static let postgresEpoch: Double = 946_684_800

    static func bigEndian(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
    static func bigEndian(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }

    /// The binary array format (`array_send`): dimensions, a has-nulls flag, the element type, each
    /// dimension's length and lower bound, then each element as a length (-1 for NULL) and its bytes.
    static func array(element: UInt32, _ items: [[UInt8]?]) -> [UInt8] {
        var out: [UInt8] = []
        out += bigEndian(UInt32(items.isEmpty ? 0 : 1))
        out += bigEndian(UInt32(items.contains { $0 == nil } ? 1 : 0))
        out += bigEndian(element)
        if !items.isEmpty {
            out += bigEndian(UInt32(items.count))
            out += bigEndian(UInt32(1))
        }
        for item in items {
            if let item {
                out += bigEndian(UInt32(item.count))
                out += item
            } else {
                out += bigEndian(UInt32(bitPattern: -1))
            }
        }
        return out
    }

    /// A column's binary value decoded by its type; nil for a type this store never reads (the caller
    /// treats it as a row it does not understand).
    static func decode(type: UInt32, _ bytes: UnsafeRawBufferPointer) -> PostgresValue? {
        func integer() -> Int64? {
            guard [1, 2, 4, 8].contains(bytes.count) else { return nil }
            var v: UInt64 = 0
            for b in bytes { v = v << 8 | UInt64(b) }
            // Sign-extend from the value's width.
            let shift = UInt64(64 - bytes.count * 8)
            return Int64(bitPattern: v << shift) >> Int64(shift)
        }
        switch type {
        case OID.bool:
            guard bytes.count == 1 else { return nil }
            return .bool(bytes[0] != 0)
        case OID.int8, OID.int4, OID.int2:
            guard bytes.count == (type == OID.int8 ? 8 : type == OID.int4 ? 4 : 2) else { return nil }
            return integer().map { .int($0) }
        case OID.float8:
            guard bytes.count == 8, let bits = integer() else { return nil }
            return .double(Double(bitPattern: UInt64(bitPattern: bits)))
        case OID.float4:
            guard bytes.count == 4, let bits = integer() else { return nil }
            return .double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))))
        case OID.text, OID.varchar, OID.name:
            guard let s = String(validating: bytes, as: UTF8.self) else { return nil }
            return .text(s)
        case OID.bytea:
            return .bytes(Array(bytes))
        case OID.void:
            return .null
        case OID.timestamptz:
            guard bytes.count == 8, let micros = integer() else { return nil }
            return .timestamp(Double(micros) / 1_000_000 + postgresEpoch)
        default:
            return nil
        }
    }
}

/// Rows as they came back, each column decoded (`PostgresValue`). Accessors check each value's type and
/// throw rather than trap: what the database holds is read like any input from outside.
public struct PostgresRows: Sendable {
    public var columns: [String]
    public var rows: [[PostgresValue]]
    /// The command's tag's count (`UPDATE 3`: 3), for statements that return no rows.
    public var affected: Int
    /// The command's tag (`INSERT 0 3`, `COMMIT`, or `ROLLBACK` for a COMMIT of a failed transaction).
    public var tag: String = ""

    public var isEmpty: Bool { rows.isEmpty }
    public var count: Int { rows.count }

    /// Row `row`, column `name`.
    public func value(_ row: Int, _ name: String) throws -> PostgresValue {
        guard rows.indices.contains(row), let column = columns.firstIndex(of: name), rows[row].indices.contains(column) else {
            throw PostgresError(kind: .unexpectedRow, message: "no column \(name) in row \(row)")
        }
        return rows[row][column]
    }

    public func int(_ row: Int, _ name: String) throws -> Int64? {
        switch try value(row, name) {
        case .null: return nil
        case .int(let v): return v
        case let other: throw PostgresError(kind: .unexpectedRow, message: "column \(name) is \(other), not an integer")
        }
    }

    /// An integer column that must hold a value in `range`.
    public func int(_ row: Int, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let v = try int(row, name) else { return nil }
        guard let i = Int(exactly: v), range.contains(i) else {
            throw PostgresError(kind: .unexpectedRow, message: "column \(name) holds \(v), outside \(range)")
        }
        return i
    }

    public func text(_ row: Int, _ name: String) throws -> String? {
        switch try value(row, name) {
        case .null: return nil
        case .text(let v): return v
        case let other: throw PostgresError(kind: .unexpectedRow, message: "column \(name) is \(other), not text")
        }
    }

    public func bytes(_ row: Int, _ name: String) throws -> [UInt8]? {
        switch try value(row, name) {
        case .null: return nil
        case .bytes(let v): return v
        case let other: throw PostgresError(kind: .unexpectedRow, message: "column \(name) is \(other), not bytes")
        }
    }

    public func double(_ row: Int, _ name: String) throws -> Double? {
        switch try value(row, name) {
        case .null: return nil
        case .double(let v): return v
        case .int(let v): return Double(v)
        case .timestamp(let v): return v
        case let other: throw PostgresError(kind: .unexpectedRow, message: "column \(name) is \(other), not a number")
        }
    }

    public func bool(_ row: Int, _ name: String) throws -> Bool? {
        switch try value(row, name) {
        case .null: return nil
        case .bool(let v): return v
        case let other: throw PostgresError(kind: .unexpectedRow, message: "column \(name) is \(other), not a boolean")
        }
    }
}

/// Why a statement failed, and what that says about the connection and a commit's outcome.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No connection could be made (every host refused, timed out or was read-only).
        case connect
        /// The server answered with an error (`sqlState`); the connection is still usable.
        case server(sqlState: String)
        /// The connection broke while a statement was under way.
        case connectionLost
        /// A statement outlived its deadline: the connection was closed (never cancelled).
        case timedOut
        /// A COMMIT returned with a notice that it was not replicated to the synchronous standby (its wait
        /// was cancelled): committed locally only, so not a success.
        case notReplicated
        /// A row did not hold what the store wrote (a type or a range).
        case unexpectedRow
        /// The connection was closed earlier.
        case closed
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        (self.kind, self.message) = (kind, message)
    }

    /// The connection is gone: a COMMIT that failed so has an unknown outcome.
    public var connectionGone: Bool { [.connectionLost, .timedOut, .closed].contains(kind) }

    public var description: String {
        switch kind {
        case .server(let state): "PostgreSQL error \(state): \(message)"
        default: "PostgreSQL (\(kind)): \(message)"
        }
    }
}
