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
        let decoded = try JSONDecoder().decode(Wire.self, from: Data(shared))
        #expect(decoded.shapes == [shape] && decoded.seq == 1 && decoded.by == 3 && decoded.live)
        let sharedEvents = try JSONValue.parse(shared)["events"], mineEvents = try JSONValue.parse(mine)["events"]
        guard case .array(let a)? = sharedEvents, case .array(let b)? = mineEvents else { Issue.record("no events"); return }
        #expect(a.count == 1 && b.count == 2 && b[1]["type"] == .string("haptic"))
    }

    @Test("Shape(json:) reads every kind back from its wire form, and refuses a damaged one")
    func shapeFromJSON() throws {
        let kinds: [ShapeKind] = [.dot, .roundedRect, .oval, .triangle, .polygon(sides: 7), .star(points: 6, innerRatio: 0.35), .fractal(depth: 3)]
        for (n, kind) in kinds.enumerated() {
            let shape = Shape(id: "k\(n)", kind: kind, center: Point(x: 10.5, y: -3), size: Size(width: 40, height: 30),
                              scale: 1.25, rotation: 0.5, fill: HSBColor(h: 0.1, s: 0.2, b: 0.3, a: 0.4), hatch: .crossHatch, z: n)
            var w = JSONWriter()
            ServerMessage.writeShape(&w, shape)
            let json = try JSONValue.parse(w.bytes)
            #expect(Shape(json: json) == shape)
            guard case .object(var fields) = json else { Issue.record("not an object"); return }
            fields["z"] = .string("top")
            #expect(Shape(json: .object(fields)) == nil)
        }
    }

    @Test("[P4, P25] A locked shape carries \"locked\":true on the wire and in snapshots; an unlocked one carries no locked at all")
    func lockedOnTheWire() throws {
        var shape = Shape(id: "l", kind: .oval, center: Point(x: 10, y: 10), size: Size(width: 40, height: 30),
                          fill: HSBColor(h: 0.1, s: 0.2, b: 0.3, a: 0.4), z: 3)
        for locked in [false, true] {
            shape.locked = locked
            var w = JSONWriter()
            ServerMessage.writeShape(&w, shape)
            let json = try JSONValue.parse(w.bytes)
            #expect(json["locked"] == (locked ? .bool(true) : nil))
            #expect(Shape(json: json) == shape)
            let codable = try JSONEncoder().encode(shape)
            #expect(try JSONValue.parse(Array(codable))["locked"] == (locked ? .bool(true) : nil))
            #expect(try JSONDecoder().decode(Shape.self, from: codable) == shape)
        }
        var w = JSONWriter()
        ServerMessage.writeShape(&w, shape)
        guard case .object(var fields) = try JSONValue.parse(w.bytes) else { Issue.record("not an object"); return }
        fields["locked"] = .string("yes")
        #expect(Shape(json: .object(fields)) == nil)
    }

    @Test("Haptics spliced into a serialised delta give the same JSON as serialising the delta with them",
          arguments: [(true, true), (true, false), (false, true), (false, false)])
    func hapticSplice(live: Bool, withGuides: Bool) throws {
        let guides = withGuides ? [Guide(axis: .y, at: 64, from: 0, to: 90, target: .grid)] : []
        let shape = Shape(id: "a", kind: .oval, center: Point(x: 1.5, y: -2), size: Size(width: 30, height: 20), fill: .seedDefault(hue: 0.5), z: 3)
        let d = Delta(seq: 9, by: 2, ops: ["x"], shapes: [shape], guides: guides, live: live)
        let haptics = [Haptic(reason: .grid), Haptic(reason: .edge)]
        let spliced = ServerMessage.adding(haptics, to: ServerMessage.delta(d))
        let parsed = try JSONValue.parse(spliced)
        guard case .array(let events)? = parsed["events"] else { Issue.record("no events"); return }
        #expect(events.count == guides.count + 2)
        #expect(events.last?["reason"] == .string("edge") && parsed["live"] == .bool(live))
        #expect(parsed["shapes"] == (try JSONValue.parse(ServerMessage.delta(d)))["shapes"])
        // The frame the room queues holds the same bytes; with no haptics it is the shared frame itself.
        let shared = ServerMessage.delta(d)
        let frame = Frame(payload: shared)
        #expect(ServerMessage.frame(adding: haptics, to: shared, shared: frame).bytes == spliced)
        #expect(ServerMessage.frame(adding: [], to: shared, shared: frame) === frame)
    }

    @Test("A haptic of each reason is spliced in with its type, style and reason", arguments: [
        Haptic.Reason.edge, .grid, .angle, .gap, .anchor,
    ])
    func hapticReasons(reason: Haptic.Reason) throws {
        let d = Delta(seq: 1, by: 1, ops: [], shapes: [], live: true)
        let parsed = try JSONValue.parse(ServerMessage.delta(d, haptics: [Haptic(reason: reason)]))
        guard case .array(let events)? = parsed["events"] else { Issue.record("no events"); return }
        #expect(events == [.object(["type": .string("haptic"), "style": .string("light"), "reason": .string(reason.rawValue)])])
    }

    @Test("A writer's JSON taken out leaves it empty, ready for the next message")
    func takeEmptiesTheWriter() {
        var w = JSONWriter(reserving: 64)
        w.beginObject()
        w.number("a", 1)
        w.endObject()
        #expect(w.take() == Array(#"{"a":1}"#.utf8))
        #expect(w.count == 0 && w.take().isEmpty)
        w.beginArray()
        w.number(2)
        w.string("x")
        w.endArray()
        #expect(w.bytes == Array(#"[2,"x"]"#.utf8))
    }

    @Test("Integers and doubles are written as JSON numbers that read back the same", arguments: [
        0.0, -1, 7, 1234567890123, -98765, 0.5, -3.25, 1e-7, 123456.789,
    ])
    func numbers(value: Double) throws {
        var w = JSONWriter()
        w.beginArray()
        w.number(value)
        w.number(Int(value.rounded()))
        w.endArray()
        #expect(try JSONValue.parse(w.bytes) == .array([.number(value), .number(value.rounded())]))
    }

    @Test("A batch is a JSON array of the messages in order")
    func batch() throws {
        let b = Frame(batch: [Frame(payload: ServerMessage.ack(id: "x", seq: 1)), Frame(payload: ServerMessage.pong(t: .number(2)))])
        guard case .array(let items) = try JSONValue.parse(b.bytes) else { Issue.record("not an array"); return }
        #expect(items.map { $0["type"] } == [.string("ack"), .string("pong")])
    }
}
