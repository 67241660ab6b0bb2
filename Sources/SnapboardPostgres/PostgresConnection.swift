internal import CLibPQ
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where and how to connect: a libpq URL or `key=value` string (several hosts for a failover cluster, with
/// `target_session_attrs=read-write`), parsed once, plus what Snapboard adds to every session.
///
/// With several hosts libpq tries them in order and takes the first read-write one. A host that failed
/// us (a commit that hung on a primary that lost its cluster but not its connections, a "zombie") is put
/// last for the next connection, so the node does not land on it again and again.
public final class PostgresTarget: @unchecked Sendable {
    /// Why a URL cannot be used.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    private let parameters: [(String, String)]
    private let hosts: [String]
    /// Host-indexed lists (`hostaddr`, `port` when it names one per host), rotated with `hosts`.
    private let perHost: [String: [String]]
    /// The first host to try: moves past a host that failed. Any thread.
    private let start = LockedInt()

    /// `url` as libpq reads it (`postgresql://user:pw@h1:5432,h2:5432/db?target_session_attrs=read-write`
    /// or `host=… port=…`). Throws when libpq cannot parse it.
    public init(_ url: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &error) else {
            let message = error.map { String(cString: $0) } ?? "out of memory"
            if let error { PQfreemem(error) }
            throw Invalid(description: "the database URL does not parse: \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        defer { PQconninfoFree(options) }
        var parameters: [(String, String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { parameters.append((String(cString: keyword), String(cString: value))) }
            option += 1
        }
        self.parameters = parameters
        let value = { (key: String) in parameters.first { $0.0 == key }?.1 }
        hosts = value("host").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        var perHost: [String: [String]] = [:]
        for key in ["hostaddr", "port"] {
            if let list = value(key)?.split(separator: ",", omittingEmptySubsequences: false).map(String.init),
               list.count == hosts.count, hosts.count > 1 {
                perHost[key] = list
            }
        }
        self.perHost = perHost
    }

    /// The URL's parameters with the hosts rotated to start at the preferred one, then `extra` (which
    /// override the URL's); `connect_timeout` defaults to 2 s per host.
    func keywords(extra: [(String, String)]) -> [(String, String)] {
        var out: [(String, String)] = []
        if !parameters.contains(where: { $0.0 == "connect_timeout" }) { out.append(("connect_timeout", "2")) }
        let first = hosts.count > 1 ? start.value % hosts.count : 0
        func rotated(_ list: [String]) -> String { (Array(list[first...]) + Array(list[..<first])).joined(separator: ",") }
        for (key, value) in parameters where !extra.contains(where: { $0.0 == key }) {
            if key == "host", hosts.count > 1 {
                out.append((key, rotated(hosts)))
            } else if let list = perHost[key] {
                out.append((key, rotated(list)))
            } else {
                out.append((key, value))
            }
        }
        return out + extra
    }

    /// The host (and port) the connection reached failed it: try the next one first from now on.
    func failed(host: String?, port: String?) {
        guard hosts.count > 1, let host else { return }
        let ports = perHost["port"]
        let index = hosts.indices.first { hosts[$0] == host && (ports == nil || ports?[$0] == port) }
            ?? perHost["hostaddr"].flatMap { addrs in addrs.indices.first { addrs[$0] == host } }
        if let index { start.value = index + 1 }
    }

    /// How many hosts a connection may try (for bounding the time a connect may take).
    var hostCount: Int { max(1, hosts.count) }
}

/// An integer behind a lock (the target is shared by a store's connections on different threads).
final class LockedInt: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = 0
    var value: Int {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}

/// One libpq connection, used by one thread at a time (the journal's, a reader's or the lease's): not
/// Sendable for that reason. Every statement is sent without blocking and waited for with `poll` up to a
/// deadline; a statement that outlives it ends by closing the connection (`PQfinish`), never by a cancel
/// request: a cancelled wait for synchronous replication returns a plain success although the commit is
/// on the primary only. Notices (warnings included) are recorded, and a COMMIT that brought one about
/// synchronous replication is a failed commit.
public final class PostgresConnection {
    private var handle: OpaquePointer?
    private let target: PostgresTarget?
    private let notices = NoticeLog()
    /// Each statement's deadline, from when it is sent.
    public var statementTimeout: Duration

    /// Connects to `target` (blocking: at most `connect_timeout`, 2 s unless the URL says otherwise, per
    /// host), with `applicationName` and `options` (`-c name=value …`) for the session.
    public init(target: PostgresTarget, applicationName: String, options: String = "", statementTimeout: Duration = .seconds(10)) throws {
        self.target = target
        self.statementTimeout = statementTimeout
        var extra = [("application_name", applicationName)]
        if !options.isEmpty { extra.append(("options", options)) }
        handle = try Self.connect(target.keywords(extra: extra))
        try configure()
    }

    /// Connects with a plain URL or `key=value` string (tests' admin connections).
    public convenience init(url: String, applicationName: String = "snapboard-admin", statementTimeout: Duration = .seconds(10)) throws {
        try self.init(target: PostgresTarget(url), applicationName: applicationName, statementTimeout: statementTimeout)
    }

    deinit { close() }

    private static func connect(_ parameters: [(String, String)]) throws -> OpaquePointer {
        let keys = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer { (keys + values).forEach { free($0) } }
        let conn = (keys.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { k in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { v in
                PQconnectdbParams(k.baseAddress, v.baseAddress, 0)
            }
        }
        guard let conn else { throw PostgresError(kind: .connect, message: "out of memory") }
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(conn)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(conn)
            throw PostgresError(kind: .connect, message: message)
        }
        return conn
    }

    private func configure() throws {
        guard let handle else { return }
        PQsetNoticeReceiver(handle, { arg, result in
            guard let arg, let result else { return }
            let log = Unmanaged<NoticeLog>.fromOpaque(arg).takeUnretainedValue()
            log.messages.append(String(cString: PQresultErrorMessage(result)))
        }, Unmanaged.passUnretained(notices).toOpaque())
        guard PQsetnonblocking(handle, 1) == 0 else {
            close()
            throw PostgresError(kind: .connect, message: "cannot make the connection non-blocking")
        }
    }

    /// True until the connection is closed or found broken.
    public var isOpen: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// The host and port this connection reached.
    public var server: (host: String?, port: String?) {
        guard let handle else { return (nil, nil) }
        return (PQhost(handle).map { String(cString: $0) }, PQport(handle).map { String(cString: $0) })
    }

    /// The server process serving this connection (for `pg_stat_activity`), 0 when closed.
    public var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// Closes the connection (`PQfinish`): the server ends the session and rolls back an open transaction
    /// (a COMMIT already under way may still complete).
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Closes a connection that failed and tells the target to prefer another host next time.
    private func fail(_ kind: PostgresError.Kind, _ message: String) -> PostgresError {
        let (host, port) = server
        target?.failed(host: host, port: port)
        close()
        return PostgresError(kind: kind, message: message)
    }

    /// Runs one statement with `parameters` (`$1`, `$2`, …, sent in binary) and returns its rows, decoded.
    /// Throws `PostgresError`: `.server` leaves the connection usable; any other kind has closed it.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = [], timeout: Duration? = nil) throws -> PostgresRows {
        guard let handle else { throw PostgresError(kind: .closed, message: "the connection was closed") }
        let deadline = ContinuousClock.now + (timeout ?? statementTimeout)
        let sent = Self.withParameters(parameters) { types, values, lengths, formats in
            PQsendQueryParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 1)
        }
        guard sent == 1 else { throw fail(.connectionLost, errorMessage) }
        while true {
            let flushed = PQflush(handle)
            if flushed == 0 { break }
            guard flushed > 0 else { throw fail(.connectionLost, errorMessage) }
            try wait(for: Int16(POLLOUT), until: deadline, handle)
        }
        var last: OpaquePointer?
        defer { if let last { PQclear(last) } }
        var failure: PostgresError?
        while true {
            while PQisBusy(handle) == 1 {
                try wait(for: Int16(POLLIN), until: deadline, handle)
                guard PQconsumeInput(handle) == 1 else { throw fail(.connectionLost, errorMessage) }
            }
            guard let result = PQgetResult(handle) else { break }
            switch PQresultStatus(result) {
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
                if let last { PQclear(last) }
                last = result
            default:
                let message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
                let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
                PQclear(result)
                if failure == nil { failure = PostgresError(kind: .server(sqlState: state ?? "?????"), message: message) }
            }
        }
        if PQstatus(handle) != CONNECTION_OK { throw fail(.connectionLost, failure?.message ?? errorMessage) }
        if let failure { throw failure }
        guard let last else { throw PostgresError(kind: .unexpectedRow, message: "no result") }
        return try Self.rows(last)
    }

    /// Commits the open transaction. Throws `.notReplicated` (closing the connection) when a notice says
    /// the wait for synchronous replication was cancelled, `.timedOut` when it outlives `timeout` (the
    /// connection closed: the outcome is unknown), `.connectionLost` (unknown too), `.server` when the
    /// server refused it (rolled back).
    public func commit(timeout: Duration? = nil) throws {
        notices.messages.removeAll()
        let rows = try query("COMMIT", timeout: timeout)
        if let warning = notices.messages.first(where: { $0.localizedCaseInsensitiveContains("synchronous replication") }) {
            throw fail(.notReplicated, warning.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        // COMMIT of a transaction that failed earlier answers ROLLBACK, without an error.
        guard rows.tag == "COMMIT" else { throw PostgresError(kind: .server(sqlState: "25P02"), message: "the transaction was rolled back (\(rows.tag))") }
    }

    /// Rolls back, ignoring a failure (the connection is then closed, which rolls back too).
    public func rollback() {
        guard isOpen else { return }
        do { try query("ROLLBACK") } catch { close() }
    }

    /// The notices (warnings included) received since the last COMMIT began, for tests and logs.
    public var receivedNotices: [String] { notices.messages }

    private var errorMessage: String {
        handle.map { String(cString: PQerrorMessage($0)).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "closed"
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant, _ handle: OpaquePointer) throws {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw fail(.timedOut, "no answer within the deadline; the connection was closed") }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var descriptor = pollfd(fd: PQsocket(handle), events: events, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw fail(.connectionLost, "poll: errno \(errno)") }
        }
    }

    private static func withParameters<R>(
        _ parameters: [PostgresValue],
        _ body: (UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        let encoded = parameters.map(\.parameter)
        let buffers: [UnsafeMutablePointer<CChar>?] = encoded.map { type, bytes in
            guard let bytes else { return nil }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, bytes.count))
            bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: bytes.count) }
            }
            return buffer
        }
        defer { buffers.forEach { $0?.deallocate() } }
        let types = encoded.map(\.type)
        let lengths = encoded.map { Int32($0.bytes?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: encoded.count)
        let values = buffers.map { $0.map { UnsafePointer($0) } }
        return types.withUnsafeBufferPointer { t in
            values.withUnsafeBufferPointer { v in
                lengths.withUnsafeBufferPointer { l in
                    formats.withUnsafeBufferPointer { f in body(t.baseAddress, v.baseAddress, l.baseAddress, f.baseAddress) }
                }
            }
        }
    }

    private static func rows(_ result: OpaquePointer) throws -> PostgresRows {
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var rows: [[PostgresValue]] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [PostgresValue] = []
            for column in 0..<columnCount {
                let (r, c) = (Int32(row), Int32(column))
                if PQgetisnull(result, r, c) == 1 {
                    values.append(.null)
                    continue
                }
                let type = PQftype(result, c)
                let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result, r, c), count: Int(PQgetlength(result, r, c)))
                guard let value = PostgresValue.decode(type: type, bytes) else {
                    throw PostgresError(kind: .unexpectedRow, message: "column \(columns[column]) of type \(type) does not decode")
                }
                values.append(value)
            }
            rows.append(values)
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return PostgresRows(columns: columns, rows: rows, affected: affected, tag: String(cString: PQcmdStatus(result)))
    }
}

/// The notices libpq hands the receiver, on the thread running the connection's statement.
private final class NoticeLog {
    var messages: [String] = []
}
