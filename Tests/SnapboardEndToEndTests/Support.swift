import Foundation
import SnapboardLoad
import SnapboardProtocol
import SnapboardLWSClient
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `snapboard-server` binary, started on port 0 with the given flags; killed when released.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let port: Int
    /// The SQLite file the server keeps canvases in: a fresh one unless a test passes its own.
    let dataPath: String
    private let ownsData: Bool
    private let output = Pipe()

    /// `errorLog`: a file that takes the server's standard error (else the test's own). `launcher`: a
    /// command that execs the server with its arguments (`prlimit --nofile=128 --`), keeping its pid.
    init(_ arguments: [String] = [], data: String? = nil, environment: [String: String] = [:], errorLog: String? = nil,
         launcher: [String] = []) throws {
        ownsData = data == nil
        dataPath = data ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("snapboard-test-\(getpid())-\(UUID().uuidString)/canvases.sqlite").path
        let serverArguments = ["--port", "0", "--log-level", "warning", "--data", dataPath] + arguments
        if let command = launcher.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(launcher.dropFirst()) + [serverBinary.path] + serverArguments
        } else {
            process.executableURL = serverBinary
            process.arguments = serverArguments
        }
        process.standardOutput = output
        if let errorLog {
            _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: errorLog)
        }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        try process.run()
        // The first line says where it listens.
        var line: [UInt8] = []
        let handle = output.fileHandleForReading
        while line.last != 0x0A {
            let byte = handle.readData(ofLength: 1)
            guard !byte.isEmpty else { throw Self.abandon(process, ServerStartError(output: String(decoding: line, as: UTF8.self))) }
            line.append(contentsOf: byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let port = Int(text.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            throw Self.abandon(process, ServerStartError(output: text))
        }
        self.port = port
    }

    /// Kills a server that did not start as expected (a throwing init runs no `deinit`, and a server left
    /// running would keep the test run's output open), and returns `error`.
    private static func abandon(_ process: Process, _ error: ServerStartError) -> ServerStartError {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return error
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if ownsData { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: dataPath).deletingLastPathComponent().path) }
    }

    func url(_ canvas: String, _ query: String = "") -> String {
        "ws://127.0.0.1:\(port)/v1/canvases/\(canvas)" + (query.isEmpty ? "" : "?" + query)
    }

    /// Sends SIGTERM and waits for the process to exit; returns its status.
    func terminate(timeout: Double = 10) -> Int32? {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    var isRunning: Bool { process.isRunning }

    /// The process's CPU time and memory, from `/proc`.
    var sampler: ProcessSampler { ProcessSampler(pid: process.processIdentifier) }
}

struct ServerStartError: Error { var output: String }

/// Polls `condition` for up to `timeout` seconds; records an issue when it never held.
func waitFor(_ timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return }
        usleep(50_000)
    }
    Issue.record("not within \(timeout) s", sourceLocation: sourceLocation)
}

/// True when `make test-asan` or `make test-tsan` runs the suite: the sanitizers replace the allocator and
/// slow everything several times, so memory figures and time bounds say nothing about the server then.
let underSanitizer = ["ASAN_OPTIONS", "TSAN_OPTIONS"].contains { ProcessInfo.processInfo.environment[$0] != nil }

/// The built `snapboard-server` binary, beside the test bundle.
var serverBinary: URL {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [here.appendingPathComponent("snapboard-server"),
                      here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("snapboard-server")]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
}

/// Runs `snapboard-server` with `arguments` (and `environment` added) to completion; returns its exit
/// status and standard output, with standard error after it when `withErrors`.
func runServerCommand(_ arguments: [String], environment: [String: String] = [:], withErrors: Bool = false) throws -> (status: Int32, output: String) {
    try runCommand(serverBinary, arguments, environment: environment, withErrors: withErrors)
}

/// Runs `executable` with `arguments` (and `environment` added) to completion; returns its exit status and
/// standard output, with standard error after it when `withErrors` (else standard error is the test's).
func runCommand(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], withErrors: Bool = false) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let output = Pipe()
    process.standardOutput = output
    if withErrors { process.standardError = output }
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// A protocol-level test client: a `WebSocketClient` plus JSON decoding, batch splitting and waiting.
final class TestClient {
    let socket: WebSocketClient
    private(set) var received: [JSONValue] = []
    private var cursor = 0
    private(set) var closed: (code: UInt16?, reason: String)?

    init(_ url: String) throws {
        socket = try WebSocketClient(url: url)
        try socket.connect()
    }

    /// A test client on `socket`, which the caller connects.
    init(socket: WebSocketClient) {
        self.socket = socket
    }

    func send(_ text: String) { socket.send(text) }

    func op(_ id: String, _ kind: String, _ fields: String = "") {
        socket.send(#"{"type":"op","id":"\#(id)","op":"\#(kind)""# + (fields.isEmpty ? "" : "," + fields) + "}")
    }

    /// Reads events for up to `timeout` seconds, appending decoded messages; stops early once `until` holds.
    @discardableResult
    func pump(timeout: Double = 5, until: (TestClient) -> Bool = { _ in false }) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if until(self) { return true }
            guard let event = socket.next(timeout: min(0.05, max(0, deadline.timeIntervalSinceNow))) else { continue }
            switch event {
            case .message(let bytes, _):
                guard let value = try? JSONValue.parse(bytes) else { Issue.record("server sent non-JSON"); continue }
                if case .array(let items) = value { received += items } else { received.append(value) }
            case .closed(let code, let reason):
                closed = (code, reason)
                return until(self)
            case .failed(let why):
                Issue.record("connection failed: \(why)")
                return false
            case .open:
                break
            }
        }
        return until(self)
    }

    /// Waits for the first message not yet taken that satisfies `match`, and takes everything before it;
    /// nil when none came (nothing is recorded: for threads outside a test's own).
    func next(timeout: Double = 5, _ match: (JSONValue) -> Bool) -> JSONValue? {
        var found: JSONValue?
        pump(timeout: timeout) { c in
            if let i = c.received[c.cursor...].firstIndex(where: match) {
                found = c.received[i]
                c.cursor = i + 1
                return true
            }
            return false
        }
        return found
    }

    /// Waits for the first message not yet taken that satisfies `match`, and takes everything before it.
    func expect(_ what: String, timeout: Double = 5, sourceLocation: SourceLocation = #_sourceLocation,
                _ match: (JSONValue) -> Bool) -> JSONValue? {
        let found = next(timeout: timeout, match)
        if found == nil { Issue.record("no \(what) within \(timeout) s; got \(received.suffix(5))", sourceLocation: sourceLocation) }
        return found
    }

    func expect(type: String, timeout: Double = 5, sourceLocation: SourceLocation = #_sourceLocation,
                where extra: (JSONValue) -> Bool = { _ in true }) -> JSONValue? {
        expect(type, timeout: timeout, sourceLocation: sourceLocation) { $0["type"] == .string(type) && extra($0) }
    }

    func all(_ type: String) -> [JSONValue] { received.filter { $0["type"] == .string(type) } }

    func close() { socket.close() }
}

/// A TCP socket connected to 127.0.0.1:`port`; a `receiveBuffer` size is set before connecting, and
/// with `receiveTimeout` a blocking `recv` gives up after that many seconds.
func connectLoopback(port: Int, receiveBuffer: Int32? = nil, receiveTimeout: Int? = nil) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ServerStartError(output: "socket") }
    if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
    if let seconds = receiveTimeout {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard ok == 0 else {
        Glibc.close(fd)
        throw ServerStartError(output: "connect")
    }
    return fd
}

/// Writes a WebSocket upgrade request for `path` (with its query) on a raw socket.
func sendUpgrade(_ fd: Int32, path: String) {
    let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
}

/// A plain HTTP/1.1 request over a real socket, so tests need no proxy-aware HTTP stack.
func httpGet(port: Int, _ path: String, headers: [String] = []) throws -> (status: Int, body: String) {
    let (status, body) = try SnapboardLWSClient.httpGet(port: port, path, headers: headers)
    return (status, String(decoding: body, as: UTF8.self))
}

/// Any HTTP request, with a body when one is given; the body of the answer as text.
func http(port: Int, _ method: String, _ path: String, body: String? = nil, headers: [String] = []) throws -> (status: Int, body: String) {
    let (status, answer) = try SnapboardLWSClient.httpRequest(port: port, method, path, headers: headers, body: body.map { Array($0.utf8) })
    return (status, String(decoding: answer, as: UTF8.self))
}

/// The WebSocket frames in `bytes` (an HTTP response's head, then unmasked server frames), as far as
/// they are complete.
func serverFrames(in bytes: [UInt8]) -> [(opcode: UInt8, fin: Bool, payload: ArraySlice<UInt8>)] {
    guard let head = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return [] }
    var frames: [(opcode: UInt8, fin: Bool, payload: ArraySlice<UInt8>)] = []
    var i = head.upperBound
    while i + 2 <= bytes.count {
        var length = Int(bytes[i + 1] & 0x7F), start = i + 2
        if length == 126, start + 2 <= bytes.count { length = Int(bytes[start]) << 8 | Int(bytes[start + 1]); start += 2 }
        else if length == 127, start + 8 <= bytes.count { length = bytes[start..<start + 8].reduce(0) { $0 << 8 | Int($1) }; start += 8 }
        guard start + length <= bytes.count else { break }
        frames.append((bytes[i] & 0x0F, bytes[i] & 0x80 != 0, bytes[start..<start + length]))
        i = start + length
    }
    return frames
}
