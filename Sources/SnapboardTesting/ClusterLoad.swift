import Foundation
import SnapboardCore
import SnapboardLWSClient
import SnapboardProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The cluster tests' load: clients on several canvases, each on a thread of its own, committing ops
/// continuously through one address (the proxy). Each client snaps a few shapes of its own and moves them
/// about; it logs every ack; when its connection closes or fails it reconnects (following a 421's Location
/// to the owner) and resends every op not yet answered, with the same ids, in the order it first sent them.
/// What it was told goes to `AckChecker` at the end.
public final class ClusterLoad: @unchecked Sendable {
    /// One ack, as a client saw it: for recovery times.
    public struct AckEvent: Sendable {
        public var canvas: String
        public var client: String
        public var seq: Int
        public var at: ContinuousClock.Instant
        /// Which of the client's connections it came on (1 for its first).
        public var connection: Int
    }

    /// One client's state; guarded by the load's lock, written by the client's own thread.
    struct ClientState {
        let id: String
        let canvas: String
        var sent: [AckChecker.Sent] = []
        /// Index of each op id in `sent`.
        var index: [String: Int] = [:]
        var fields: [String: String] = [:]
        var answered: Set<String> = []
        /// What happened to each op, in order: sends, resends, acks and rejects, each with its connection.
        var trail: [String: [String]] = [:]
        var rejected: [String: String] = [:]
        var connects = 0
        var redirects = 0
        var closes: [String] = []
        var epoch: String?
        /// The canvas as this client sees it, from its welcomes and deltas.
        var replica = Replica()
    }

    public let host: String
    public let port: Int
    public let canvases: [String]
    private let period: Double
    private let window: Int
    private let state: Guarded<[ClientState]>
    private let events = Guarded([AckEvent]())
    private let running = Guarded(true)
    private var threads: [Thread] = []
    private let finished = DispatchGroup()

    /// `clientsPerCanvas` clients on each of `canvases`, reached at ws://host:port/v1/canvases/{id}; each sends
    /// an op every `period` seconds while fewer than `window` of its ops are unanswered.
    public init(host: String = "127.0.0.1", port: Int, canvases: [String], clientsPerCanvas: Int = 2, period: Double = 0.05,
                window: Int = 8, seed: UInt64 = 1) {
        self.host = host
        self.port = port
        self.canvases = canvases
        self.period = period
        self.window = window
        var clients: [ClientState] = []
        for canvas in canvases {
            for k in 0..<clientsPerCanvas { clients.append(ClientState(id: "\(canvas)-w\(k)", canvas: canvas)) }
        }
        state = Guarded(clients)
        for i in clients.indices {
            let thread = Thread { [self] in
                run(i, seed: seed &+ UInt64(i) &* 0x9E37_79B9)
                finished.leave()
            }
            thread.name = "cluster-load-\(i)"
            threads.append(thread)
        }
    }

    public func start() {
        for thread in threads {
            finished.enter()
            thread.start()
        }
    }

    /// Stops sending; gives clients up to `drain` seconds to have their unanswered ops answered (reconnecting
    /// as needed), then closes every connection and waits for the threads.
    public func stop(drain: Double = 10) {
        running.withLock { $0 = false }
        drainUntil.withLock { $0 = .now + .milliseconds(Int(drain * 1000)) }
        finished.wait()
    }

    private let drainUntil = Guarded<ContinuousClock.Instant?>(nil)

    /// What every client sent and was told, for `AckChecker.check`.
    public var clients: [AckChecker.Client] {
        state.withLock { $0.map { AckChecker.Client(id: $0.id, sent: $0.sent) } }
    }

    /// Every ack so far, in the order they came (per client).
    public var acks: [AckEvent] { events.withLock { $0 } }

    /// The first ack on `canvas` at or after `instant`.
    public func firstAck(on canvas: String, after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        events.withLock { $0.lazy.filter { $0.canvas == canvas && $0.at >= instant }.map(\.at).min() }
    }

    /// Each client's replica, by client id, with its canvas: after `stop`, what each client last saw.
    public var replicas: [(client: String, canvas: String, replica: Replica)] {
        state.withLock { $0.map { ($0.id, $0.canvas, $0.replica) } }
    }

    /// What happened to op `opID` of client `client`, in order (for a checker's findings).
    public func trail(client: String, op opID: String) -> [String] {
        state.withLock { s in s.first { $0.id == client }?.trail[opID] ?? [] }
    }

    /// Each client's current connection (the count of its connections so far), by client id.
    public var connections: [String: Int] { state.withLock { Dictionary(uniqueKeysWithValues: $0.map { ($0.id, $0.connects) }) } }

    /// The canvas each client writes, by client id.
    public var canvasOfClient: [String: String] { state.withLock { Dictionary(uniqueKeysWithValues: $0.map { ($0.id, $0.canvas) }) } }

    public var ackCount: Int { events.withLock { $0.count } }

    /// Ops not answered (neither acked, acked unchanged, nor rejected).
    public var unanswered: Int { state.withLock { $0.reduce(0) { $0 + $1.sent.count - $1.answered.count } } }

    /// Connects, reconnects after closes, and how often a 421 sent a client elsewhere.
    public var summary: String {
        state.withLock { s in
            let connects = s.reduce(0) { $0 + $1.connects }, redirects = s.reduce(0) { $0 + $1.redirects }
            let rejects = s.flatMap { $0.rejected.values }
            let closes = Dictionary(grouping: s.flatMap(\.closes), by: { $0 }).mapValues(\.count)
            return "\(s.count) clients, \(s.reduce(0) { $0 + $1.sent.count }) ops sent, \(events.withLock { $0.count }) acks, "
                + "\(connects) connects, \(redirects) redirects followed, \(rejects.count) rejected \(Set(rejects).sorted()), closes \(closes)"
        }
    }

    // MARK: - One client

    private func run(_ i: Int, seed: UInt64) {
        var rng = SeededGenerator(state: seed)
        let (id, canvas) = state.withLock { ($0[i].id, $0[i].canvas) }
        var shapes: [String] = []
        var n = 0
        let base = "ws://\(host):\(port)/v1/canvases/\(canvas)?client=\(id)"
        var socket: WebSocketClient?
        var nextSend = ContinuousClock.now
        var settled: ContinuousClock.Instant?
        while true {
            let stopping = !running.withLock { $0 }
            if stopping {
                let unanswered = state.withLock { $0[i].sent.count - $0[i].answered.count }
                let until = drainUntil.withLock { $0 } ?? .now
                if ContinuousClock.now >= until { break }
                // Everything answered: a second more of reading, so the other clients' last deltas arrive.
                if unanswered == 0, settled == nil { settled = .now + .seconds(1) }
                if let settled, ContinuousClock.now >= settled { break }
            }
            guard let open = socket else {
                socket = connect(i, base)
                if socket == nil { Thread.sleep(forTimeInterval: 0.1) }
                continue
            }
            // Send the next op when it is time and the window has room.
            if !stopping, ContinuousClock.now >= nextSend {
                let inFlight = state.withLock { $0[i].sent.count - $0[i].answered.count }
                if inFlight < window {
                    let opID = "\(id)-\(n)"
                    let fields: String
                    if shapes.count < 3 || (shapes.count < 12 && rng.nextUnit() < 0.1) {
                        let shape = "\(id)-s\(n)"
                        shapes.append(shape)
                        let x = (rng.nextUnit() * 900 + 50).rounded(), y = (rng.nextUnit() * 600 + 50).rounded()
                        fields = #""op":"snap","x":\#(x),"y":\#(y),"shapeId":"\#(shape)","shape":{"kind":"roundedRect"}"#
                    } else {
                        let shape = shapes[Int(rng.next() % UInt64(shapes.count))]
                        var dx = (rng.nextUnit() * 80 - 40).rounded(), dy = (rng.nextUnit() * 80 - 40).rounded()
                        if dx == 0 && dy == 0 { dx = 7; dy = -5 }
                        fields = #""op":"move","shape":"\#(shape)","dx":\#(dx),"dy":\#(dy)"#
                    }
                    n += 1
                    state.withLock { s in
                        s[i].index[opID] = s[i].sent.count
                        s[i].sent.append(AckChecker.Sent(canvas: canvas, opID: opID))
                        s[i].fields[opID] = fields
                        s[i].trail[opID] = ["sent on \(s[i].connects)"]
                    }
                    open.send(#"{"type":"op","id":"\#(opID)",\#(fields)}"#)
                }
                nextSend = .now + .milliseconds(Int(period * 1000))
            }
            guard let event = open.next(timeout: 0.01) else { continue }
            switch event {
            case .message(let bytes, _):
                guard let value = try? JSONValue.parse(bytes) else { continue }
                if case .array(let items) = value { for m in items { take(i, m) } } else { take(i, value) }
            case .closed(let code, let reason):
                state.withLock { $0[i].closes.append("\(code.map(String.init) ?? "-") \(reason)") }
                socket = nil
            case .failed(let why):
                state.withLock { $0[i].closes.append("failed \(why.prefix(40))") }
                socket = nil
            case .open:
                break
            }
        }
        socket?.close()
        if let socket { _ = socket.next(timeout: 1) }
    }

    /// One connection attempt: through `base`, or where a 421 points. On open, resends what is unanswered
    /// (after the welcome, as clients do) and returns the socket.
    private func connect(_ i: Int, _ base: String) -> WebSocketClient? {
        var url = base
        for _ in 0..<3 {
            guard let socket = try? WebSocketClient(url: url) else { return nil }
            do {
                try socket.connect(timeout: 3)
            } catch {
                guard "\(error)".contains("HTTP 421"), let location = refusalLocation(url), location != url else { return nil }
                state.withLock { $0[i].redirects += 1 }
                url = location
                continue
            }
            state.withLock { $0[i].connects += 1 }
            // The welcome first, then the resends.
            let deadline = ContinuousClock.now + .seconds(5)
            var welcomed = false
            while !welcomed, ContinuousClock.now < deadline {
                guard let event = socket.next(timeout: 0.1) else { continue }
                switch event {
                case .message(let bytes, _):
                    guard let value = try? JSONValue.parse(bytes) else { continue }
                    let items: [JSONValue] = if case .array(let list) = value { list } else { [value] }
                    for m in items {
                        if m["type"] == .string("welcome") {
                            welcomed = true
                            if case .string(let e)? = m["epoch"] { state.withLock { $0[i].epoch = e } }
                        }
                        take(i, m)
                    }
                case .closed(let code, let reason):
                    state.withLock { $0[i].closes.append("\(code.map(String.init) ?? "-") \(reason)") }
                    return nil
                case .failed:
                    return nil
                case .open:
                    break
                }
            }
            guard welcomed else {
                socket.abort()
                return nil
            }
            let resend: [String] = state.withLock { s in
                let unanswered = s[i].sent.filter { !s[i].answered.contains($0.opID) }
                for op in unanswered { s[i].trail[op.opID, default: []].append("resent on \(s[i].connects)") }
                return unanswered.map { #"{"type":"op","id":"\#($0.opID)",\#(s[i].fields[$0.opID]!)}"# }
            }
            for text in resend { socket.send(text) }
            return socket
        }
        return nil
    }

    /// Applies message `m` to client `i`'s replica, and records it when it is an ack or a reject.
    private func take(_ i: Int, _ m: JSONValue) {
        if m["type"] == .string("welcome") || m["type"] == .string("delta") { state.withLock { $0[i].replica.apply(m) } }
        guard case .string(let opID)? = m["id"] else { return }
        if m["type"] == .string("ack") {
            let seq: Int? = if case .number(let n)? = m["seq"], m["unchanged"] != .bool(true), n >= 1, n < 1e12 { Int(n) } else { nil }
            let event: AckEvent? = state.withLock { s in
                guard let k = s[i].index[opID] else { return nil }
                s[i].answered.insert(opID)
                s[i].trail[opID, default: []].append((seq.map { "acked #\($0)" } ?? "acked unchanged") + " on \(s[i].connects)")
                if let seq {
                    s[i].sent[k].ackedSeq = seq
                    s[i].sent[k].epoch = s[i].epoch
                    return AckEvent(canvas: s[i].canvas, client: s[i].id, seq: seq, at: .now, connection: s[i].connects)
                }
                return nil
            }
            if let event { events.withLock { $0.append(event) } }
        } else if m["type"] == .string("reject") {
            let code: String = if case .string(let c)? = m["code"] { c } else { "?" }
            state.withLock { s in
                guard s[i].index[opID] != nil else { return }
                s[i].answered.insert(opID)
                s[i].trail[opID, default: []].append("rejected \(code) on \(s[i].connects)")
                s[i].rejected[opID] = code
            }
        }
    }

    /// The Location of the refusal an upgrade of `url` gets now (a 421 names the canvas's owner), as a ws:// URL.
    private func refusalLocation(_ url: String) -> String? {
        guard let address = try? WebSocketAddress(url: url),
              let (status, headers) = try? upgradeHead(host: address.host, port: address.port, path: address.path),
              status == 421 || status == 307, let location = headers["location"] else { return nil }
        if location.hasPrefix("http://") { return "ws://" + location.dropFirst("http://".count) }
        if location.hasPrefix("https://") { return "wss://" + location.dropFirst("https://".count) }
        if location.hasPrefix("/") { return "ws://\(address.host):\(address.port)\(location)" }
        return location
    }
}

/// The status and headers (names lowercased) of the answer to a WebSocket upgrade of `path` at host:port, read
/// on a raw socket that is then closed (a 101 opens a session that ends at once).
public func upgradeHead(host: String = "127.0.0.1", port: Int, path: String, timeout: Int = 3) throws -> (Int, [String: String]) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ServerStartError(output: "socket") }
    defer { close(fd) }
    var tv = timeval(tv_sec: timeout, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr(host)
    let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard ok == 0 else { throw ServerStartError(output: "connect \(host):\(port)") }
    let request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while response.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        response += buffer[0..<n]
    }
    let head = String(decoding: response.prefix(while: { _ in true }), as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
    let lines = head.components(separatedBy: "\r\n")
    let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return (status, headers)
}

/// A value behind a lock (SnapboardTesting does not link SnapboardLock).
final class Guarded<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
