import Foundation
import Testing

@testable import SnapboardClient
import SnapboardCore
@testable import SnapboardProtocol

/// A transport double: records what was sent and plays back scripted events. The session's logic is
/// pure; the real transport is tested end to end.
final class FakeTransport: CanvasTransport {
    var sent: [String] = []
    var events: [TransportEvent] = []
    func send(_ text: String) { sent.append(text) }
    func receive(timeout: Double) -> TransportEvent? { events.isEmpty ? nil : events.removeFirst() }
    func disconnect() {}
}

@Suite("Client session: reconnecting and resending")
struct SessionTests {
    @Test("After a drop the session waits out its backoff between attempts, resumes with since, and resends unanswered ops")
    func reconnect() throws {
        var attempts: [(url: String, at: Date)] = []
        var transports: [FakeTransport] = []
        var failuresLeft = 0
        let session = CanvasSession(url: "ws://h:1/v1/canvases/c", clientID: "me") { url in
            attempts.append((url, Date()))
            if failuresLeft > 0 { failuresLeft -= 1; throw SessionError() }
            let t = FakeTransport()
            transports.append(t)
            return t
        }
        try session.connect()
        transports[0].events = [.message(Array(#"{"type":"welcome","seq":4,"resumed":false,"shapes":[]}"#.utf8))]
        session.pump(timeout: 0.1) { session.replica.seq == 4 }
        session.send(.snap(at: Point(x: 1, y: 1), shapeID: nil, spec: ShapeSpec()))
        session.send(.move("a", phase: .update, translation: Point(x: 1, y: 1)))
        // The connection drops, and the next two attempts fail.
        failuresLeft = 2
        transports[0].events = [.closed]
        session.pump(timeout: 3) { transports.count == 2 }
        #expect(transports.count == 2 && attempts.count == 4)
        let gaps = zip(attempts.dropFirst(2), attempts.dropFirst(3)).map { $1.at.timeIntervalSince($0.at) }
        #expect(gaps.allSatisfy { $0 >= 0.1 }, "attempts came \(gaps) s apart: the backoff did not hold")
        #expect(attempts.last!.url.contains("client=me") && attempts.last!.url.contains("since=4"))
        #expect(transports[1].sent.count == 1 && transports[1].sent[0].contains(#""op":"snap""#), "only the committing op is resent")
    }
}

struct SessionError: Error {}
