import Foundation
import SnapboardProtocol
import SnapboardTesting
import Testing

/// Polls `condition` for up to `timeout` seconds; records an issue when it never held.
func waitFor(_ timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return }
        usleep(50_000)
    }
    Issue.record("not within \(timeout) s", sourceLocation: sourceLocation)
}

/// The harness's client, with what went wrong recorded as issues of the test that reads.
extension TestClient {
    /// Reads events for up to `timeout` seconds; stops early once `until` holds. A message that is not
    /// JSON, or a failed connection, is an issue of the calling test.
    @discardableResult
    func pump(timeout: Double = 5, sourceLocation: SourceLocation = #_sourceLocation, until: (TestClient) -> Bool = { _ in false }) -> Bool {
        let known = problems.count
        let held = read(timeout: timeout, until: until)
        for problem in problems[known...] { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
        return held
    }

    /// Waits for the first message not yet taken that satisfies `match`, and takes everything before it;
    /// nil when none came (nothing is recorded: for threads outside a test's own).
    func next(timeout: Double = 5, _ match: (JSONValue) -> Bool) -> JSONValue? {
        take(timeout: timeout, match)
    }

    /// Waits for the first message not yet taken that satisfies `match`, and takes everything before it.
    func expect(_ what: String, timeout: Double = 5, sourceLocation: SourceLocation = #_sourceLocation,
                _ match: (JSONValue) -> Bool) -> JSONValue? {
        let known = problems.count
        let found = take(timeout: timeout, match)
        for problem in problems[known...] { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
        if found == nil { Issue.record("no \(what) within \(timeout) s; got \(received.suffix(5))", sourceLocation: sourceLocation) }
        return found
    }

    func expect(type: String, timeout: Double = 5, sourceLocation: SourceLocation = #_sourceLocation,
                where extra: (JSONValue) -> Bool = { _ in true }) -> JSONValue? {
        expect(type, timeout: timeout, sourceLocation: sourceLocation) { $0["type"] == .string(type) && extra($0) }
    }
}

/// Runs Protocol/validate.py over `messages`; its output when one does not match its schema, else nil.
func schemaProblems(_ messages: [JSONValue]) throws -> String? {
    let lines = messages.map { message -> String in
        var w = JSONWriter()
        w.value(message)
        return String(decoding: w.bytes, as: UTF8.self)
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-messages-\(getpid())-\(UUID().uuidString).jsonl")
    try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    python.arguments = ["python3", packageRoot.appendingPathComponent("Protocol/validate.py").path, file.path]
    let output = Pipe()
    python.standardOutput = output
    python.standardError = output
    try python.run()
    python.waitUntilExit()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return python.terminationStatus == 0 ? nil : text
}

/// An EC P-256 key pair made by openssl in `folder`: the paths of its private and public PEM files.
func makeKeyPair(in folder: URL) throws -> (privatePEM: String, publicPEM: String) {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let (privatePEM, publicPEM) = (folder.appendingPathComponent("ec.pem").path, folder.appendingPathComponent("ec.pub").path)
    for arguments in [["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", privatePEM],
                      ["ec", "-in", privatePEM, "-pubout", "-out", publicPEM]] {
        let openssl = try Process.run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments: arguments)
        openssl.waitUntilExit()
        #expect(openssl.terminationStatus == 0)
    }
    return (privatePEM, publicPEM)
}
