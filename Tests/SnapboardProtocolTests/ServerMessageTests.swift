import Foundation
import Testing

@testable import SnapboardCore
@testable import SnapboardProtocol

@Suite("Server messages")
struct ServerMessageTests {
    @Test("A delta's shapes decode back to the same shapes, and haptics appear only in the actor's copy")
    func deltaRoundTrip() throws {
        var canvas = try Canvas(id: "c")
        var spec = ShapeSpec(kind: "star")
        spec.points = 9
        let shape = try canvas.apply(.snap(at: Point(x: 100, y: 100), shapeID: nil, spec: spec), by: Participant(id: "p")).changed[0]
        let d = Delta(seq: 1, by: 3, ops: ["a1"], shapes: [shape],
                      guides: [Guide(axis: .x, at: 10, from: 0, to: 5, target: .shape("q"))], live: true)
        let shared = ServerMessage.delta(d)
        let mine = ServerMessage.delta(d, haptics: [Haptic(reason: .edge)])
        struct Wire: Decodable { var type: String; var seq: Int; var by: Int; var ops: [String]; var shapes: [Shape]; var live: Bool }
        let decoded = try JSONDecoder().decode(Wire.self, from: Data(ServerMessage.json(shared)))
        #expect(decoded.shapes == [shape] && decoded.seq == 1 && decoded.by == 3 && decoded.live)
        let sharedEvents = try JSONValue.parse(ServerMessage.json(shared))["events"], mineEvents = try JSONValue.parse(ServerMessage.json(mine))["events"]
        guard case .array(let a)? = sharedEvents, case .array(let b)? = mineEvents else { Issue.record("no events"); return }
        #expect(a.count == 1 && b.count == 2 && b[1]["type"] == .string("haptic"))
    }

    @Test("A batch is a JSON array of the messages in order")
    func batch() throws {
        let b = ServerMessage.batch([ServerMessage.ack(id: "x", seq: 1), ServerMessage.pong(t: .number(2))])
        guard case .array(let items) = try JSONValue.parse(ServerMessage.json(b)) else { Issue.record("not an array"); return }
        #expect(items.map { $0["type"] } == [.string("ack"), .string("pong")])
    }
}
