import Foundation
import SnapboardCore
import SnapboardProtocol
import SnapboardRoom
import SnapboardStore

/// The second and third kinds of input: an import body (`PUT /v1/canvases/{id}`) and a stored canvas's rows,
/// each taken as the server takes them, then loaded into a room that is worked a little (a snap, a drag, a
/// pinch, a twist, an undo, orders and a lock), so arithmetic on every number that passed the checks runs.
///
/// What must hold, or the harness traps (a finding):
/// - nothing traps: a number out of range is refused by the checks (`CanvasSnapshot.problem`,
///   `StoredCanvas.problem`), never computed with;
/// - what passes the checks loads (`Canvas(snapshot:)`, the room's replay), and `recovered` and `state(at:)`
///   agree with the room;
/// - the worked canvas's committed snapshot passes the checks again (what the server stores, it can load).
extension FuzzHarness {
    /// `\u{1}` then JSON: an import body.
    static func runImport(_ body: ArraySlice<UInt8>) {
        guard var snapshot = try? JSONDecoder().decode(CanvasSnapshot.self, from: Data(body)) else { return }
        snapshot.id = "fuzz"  // the path names the canvas
        guard snapshot.problem == nil else { return }
        guard let canvas = try? Canvas(snapshot: snapshot) else { fatalError("a snapshot that passes the checks must load") }
        work(Room(canvas: canvas, epoch: "0000000000000000", now: 0))
    }

    /// `\u{2}` then stored rows: a checkpoint's JSON (empty for none) up to a zero byte, then op log rows,
    /// each an 8-byte little-endian seq, a byte saying what it undoes or redoes (0 nothing, 1 undo, 2 redo)
    /// with an 8-byte seq after a non-zero one, a 2-byte length and the row's bytes.
    static func runStored(_ input: ArraySlice<UInt8>) {
        let end = input.firstIndex(of: 0) ?? input.endIndex
        let snapshot = end == input.startIndex ? nil : try? JSONDecoder().decode(CanvasSnapshot.self, from: Data(input[..<end]))
        var rest = input[min(end + 1, input.endIndex)...]
        func take(_ n: Int) -> ArraySlice<UInt8>? {
            guard rest.count >= n else { return nil }
            defer { rest = rest.dropFirst(n) }
            return rest.prefix(n)
        }
        func int(_ n: Int) -> Int? { take(n).map { $0.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }.map { Int(Int64(bitPattern: $0)) } }
        var log: [CommitRecord] = []
        while log.count < 64, let seq = int(8), let step = take(1)?.first {
            var history: HistoryStep?
            if step != 0 {
                guard let of = int(8) else { break }
                history = step == 1 ? .undo(of: of) : .redo(of: of)
            }
            guard let length = int(2).map({ $0 & 0xFFFF }), let row = take(length) else { break }
            // A row that does not decode is damage the store reports before anyone computes with it.
            guard let op = try? CommittedOp(loggedBytes: Array(row)) else { return }
            log.append(CommitRecord(canvas: "fuzz", seq: seq, op: op, client: step == 0 ? nil : "c0", opID: "o\(log.count)", step: history))
        }
        // The store reads rows in seq order, one per seq.
        var seen = Set<Int>()
        log = log.filter { seen.insert($0.seq).inserted }.sorted { $0.seq < $1.seq }
        let stored = StoredCanvas(snapshot: snapshot, log: log, epochs: [])
        var config = CanvasConfig()
        config.maxShapes = 200
        guard stored.problem(id: "fuzz", default: config) == nil else {
            precondition((try? stored.recovered(id: "fuzz", default: config)) == nil, "recovered must refuse what the checks refuse")
            return
        }
        guard let recovered = try? stored.recovered(id: "fuzz", default: config) else { fatalError("a stored canvas that passes the checks must recover") }
        let start: Canvas
        do {
            start = try stored.snapshot.map { try Canvas(snapshot: $0) } ?? Canvas(id: "fuzz", config: config)
        } catch {
            fatalError("a checkpoint that passes the checks must load: \(error)")
        }
        let room = Room(canvas: start, history: stored.log, epochs: [], epoch: "0000000000000000", now: 0)
        precondition(room.canvas.committedSnapshot.seq == recovered.seq, "the room and recovered must replay the same log")
        for seq in [0, 1, recovered.seq / 2, recovered.seq, recovered.seq + 1] {
            _ = try? stored.state(at: seq, id: "fuzz", default: config)
        }
        work(room)
    }

    /// A snap, a drag, a pinch and a twist of the first shape, an undo and a redo, a delete and its undo,
    /// then orders of it every way (z arithmetic near the ends of the range) and a lock, styles, texts, groups,
    /// duplicates, connectors bound to it and selection gestures with it, by one session;
    /// then the committed canvas must pass the checks and load again.
    static func work(_ room: Room) {
        let outbox = Outbox()
        guard case .canvas(let address) = CanvasAddress.route(path: "/v1/canvases/fuzz", query: "client=c0&name=p0&revision=2")
        else { fatalError("the fuzz canvas's address must parse") }
        room.join(session: 1, address: address, outbox: outbox, now: 0)
        let first = room.canvas.shapes.first?.id ?? "s"
        let lines = [
            #"{"type":"op","id":"w1","op":"snap","x":10,"y":10}"#,
            #"{"type":"op","id":"w2","op":"move","shape":"\#(first)","phase":"begin"}"#,
            #"{"type":"op","id":"w3","op":"move","shape":"\#(first)","phase":"update","dx":37,"dy":-12}"#,
            #"{"type":"op","id":"w4","op":"move","shape":"\#(first)","phase":"end","dx":40,"dy":-10}"#,
            #"{"type":"op","id":"w5","op":"scale","shape":"\#(first)","factor":3.5,"radians":0.4}"#,
            #"{"type":"op","id":"w6","op":"rotate","shape":"\#(first)","radians":-7}"#,
            #"{"type":"op","id":"w7","op":"undo"}"#,
            #"{"type":"op","id":"w8","op":"redo"}"#,
            #"{"type":"op","id":"w9","op":"delete","shapes":["\#(first)"]}"#,
            #"{"type":"op","id":"w10","op":"undo"}"#,
            #"{"type":"op","id":"w11","op":"order","shapes":["\#(first)"],"to":"back"}"#,
            #"{"type":"op","id":"w12","op":"lock","shapes":["\#(first)"],"locked":true}"#,
            #"{"type":"op","id":"w13","op":"move","shape":"\#(first)","dx":5,"dy":5}"#,
            #"{"type":"op","id":"w14","op":"order","shapes":["\#(first)"],"to":"forward"}"#,
            #"{"type":"op","id":"w15","op":"order","shapes":["\#(first)"],"to":"front"}"#,
            #"{"type":"op","id":"w16","op":"undo"}"#,
            #"{"type":"op","id":"w17","op":"order","shapes":["\#(first)"],"to":"backward"}"#,
            #"{"type":"op","id":"w18","op":"lock","shapes":["\#(first)"],"locked":false}"#,
            ##"{"type":"op","id":"w19","op":"style","shapes":["\##(first)"],"fill":"teal","stroke":"#00ff00","strokeWidth":32,"opacity":0.1,"fontSize":160}"##,
            #"{"type":"op","id":"w20","op":"text","shape":"\#(first)","phase":"begin"}"#,
            #"{"type":"op","id":"w21","op":"text","shape":"\#(first)","phase":"update","text":"dr\u00e9ft"}"#,
            #"{"type":"op","id":"w22","op":"text","shape":"\#(first)","phase":"end","text":"line\nnext\t\u2713"}"#,
            #"{"type":"op","id":"w23","op":"undo"}"#,
            #"{"type":"op","id":"w24","op":"snap","x":20,"y":20,"shapeId":"fz-n","shape":{"kind":"note","text":"n","fill":"yellow"}}"#,
            #"{"type":"op","id":"w25","op":"duplicate","shapes":["\#(first)"]}"#,
            #"{"type":"op","id":"w26","op":"group","shapes":["\#(first)","fz-n"]}"#,
            #"{"type":"op","id":"w27","op":"duplicate","shapes":["\#(first)","fz-n"],"ids":["fz-a","fz-b"]}"#,
            #"{"type":"op","id":"w28","op":"ungroup","shapes":["fz-a"]}"#,
            #"{"type":"op","id":"w29","op":"undo"}"#,
            #"{"type":"op","id":"w30","op":"connect","shapeId":"fz-c","from":{"shape":"\#(first)","anchor":"right"},"to":{"x":1,"y":1}}"#,
            #"{"type":"op","id":"w31","op":"endpoint","shape":"fz-c","end":"to","dx":2000000,"dy":-2000000}"#,
            #"{"type":"op","id":"w32","op":"move","shape":"\#(first)","dx":7,"dy":-3}"#,
            #"{"type":"op","id":"w33","op":"connect","shape":{"kind":"line"},"from":{"shape":"fz-n","u":0.5,"v":-0.5},"to":{"shape":"\#(first)","anchor":"top"}}"#,
            #"{"type":"op","id":"w34","op":"duplicate","shapes":["\#(first)","fz-c"]}"#,
            #"{"type":"op","id":"w35","op":"delete","shapes":["\#(first)"]}"#,
            #"{"type":"op","id":"w36","op":"undo"}"#,
            #"{"type":"op","id":"w37","op":"move","shapes":["\#(first)","fz-n","fz-c"],"phase":"begin"}"#,
            #"{"type":"op","id":"w38","op":"move","shapes":["\#(first)","fz-n","fz-c"],"phase":"update","dx":-2000000,"dy":2000000}"#,
            #"{"type":"op","id":"w39","op":"move","shapes":["fz-c","fz-n","\#(first)"],"phase":"end","dx":3,"dy":4}"#,
            #"{"type":"op","id":"w40","op":"scale","shapes":["\#(first)","fz-n"],"factor":1000000,"radians":-1000}"#,
            #"{"type":"op","id":"w41","op":"rotate","shapes":["\#(first)","fz-n"],"radians":3.14159}"#,
            #"{"type":"op","id":"w42","op":"undo"}"#,
        ]
        for (n, line) in lines.enumerated() {
            let now = Double(n) * 0.01
            if let message = try? ClientMessage.decode(Array(line.utf8)) { room.receive(message, from: 1, now: now) }
            room.tick(now: now)
            room.durable(through: room.canvas.seq, now: now)
            drain(outbox, now: now)
        }
        room.commitAllGestures(now: 1)
        drain(outbox, now: 1)
        let committed = room.canvas.committedSnapshot
        if let problem = committed.problem { fatalError("a worked canvas fails the checks: \(problem)") }
    }
}
