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
