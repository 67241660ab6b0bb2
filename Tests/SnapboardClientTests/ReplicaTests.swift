import Testing

@testable import SnapboardClient
@testable import SnapboardCore
@testable import SnapboardProtocol

func json(_ text: String) -> JSONValue { try! JSONValue.parse(Array(text.utf8)) }

let dot = #"{"id":"a","kind":"dot","x":96,"y":96,"w":24,"h":24,"scale":1,"rotation":0,"fill":{"h":0.5,"s":0.8,"b":1,"a":0.8},"hatch":"none","z":0}"#

@Suite("Client replica")
struct ReplicaTests {
    @Test("A welcome replaces the canvas; deltas add, move, remove and clear shapes")
    func welcomeAndDeltas() {
        var r = CanvasReplica()
        #expect(r.seq == -1)
        r.apply(json(#"{"type":"welcome","protocol":1,"session":3,"canvas":"c","seq":5,"resumed":false,"grid":{"width":640,"height":480,"x":{"divisions":8},"y":{"pitch":40}},"snapping":{},"shapes":[\#(dot)],"sessions":[{"session":3,"name":"ann"}],"leases":{}}"#))
        #expect(r.seq == 5 && r.session == 3 && r.shapes.keys.sorted() == ["a"] && r.sessions == [3: "ann"])
        #expect(r.grid?.x.lastInteriorIndex == 7 && r.width == 640)
        let moved = dot.replacingOccurrences(of: #""x":96"#, with: #""x":200"#)
        let change = r.apply(json(#"{"type":"delta","seq":5,"by":3,"ops":["o"],"shapes":[\#(moved)],"removed":[],"cleared":false,"events":[{"type":"guide","axis":"x","at":200,"from":0,"to":480,"target":"grid"},{"type":"haptic","style":"light","reason":"grid"}],"live":true}"#))
        #expect(change == .delta(seq: 5, live: true, haptics: [Haptic(reason: .grid)]))
        #expect(r.shapes["a"]?.center.x == 200 && r.guides.count == 1)
        r.apply(json(#"{"type":"delta","seq":6,"by":3,"ops":[],"shapes":[],"removed":["a"],"cleared":false,"events":[],"live":false}"#))
        #expect(r.shapes.isEmpty && r.seq == 6 && r.guides.isEmpty)
        r.apply(json(#"{"type":"delta","seq":7,"by":3,"ops":[],"shapes":[\#(dot)],"removed":[],"cleared":true,"events":[],"live":false}"#))
        #expect(r.shapes.count == 1)
        r.apply(json(#"{"type":"presence","event":"join","session":4,"name":"ben","sessions":[{"session":3,"name":"ann"},{"session":4,"name":"ben"}],"leases":{}}"#))
        r.apply(json(#"{"type":"presence","event":"lease","session":3,"name":"ann","leases":{"a":4}}"#))
        #expect(r.leases == ["a": 4] && r.sessions.count == 2)
        // 1.2: joins and leaves are the change alone.
        r.apply(json(##"{"type":"presence","event":"join","session":5,"name":"cy","color":"#123456","leases":{"a":4}}"##))
        #expect(r.sessions == [3: "ann", 4: "ben", 5: "cy"])
        r.apply(json(##"{"type":"presence","event":"leave","session":4,"name":"ben","color":"#654321","leases":{}}"##))
        #expect(r.sessions == [3: "ann", 5: "cy"] && r.leases.isEmpty)
    }

    @Test("[P8] 1.4: a live delta's placements move the shapes the replica holds and keep the rest of each; others are skipped")
    func placedLiveDelta() {
        var r = CanvasReplica()
        r.apply(json(#"{"type":"welcome","seq":1,"resumed":false,"shapes":[\#(dot)]}"#))
        let before = r.shapes["a"]!
        let change = r.apply(json(#"{"type":"delta","seq":1,"by":3,"ops":["u"],"placed":[["a",200,150,24,24,2,0.5,4],["nope",1,2,3,4,5,6,7],["a","bad"]],"events":[{"type":"haptic","style":"light","reason":"edge"}],"live":true}"#))
        #expect(change == .delta(seq: 1, live: true, haptics: [Haptic(reason: .edge)]))
        var expected = before
        (expected.center, expected.scale, expected.rotation, expected.z) = (Point(x: 200, y: 150), 2, 0.5, 4)
        #expect(r.shapes == ["a": expected])
        #expect(r.shapes["a"]?.fill == before.fill && r.shapes["a"]?.kind == before.kind)
    }

    @Test("A resumed welcome keeps the shapes the client has")
    func resumedWelcome() {
        var r = CanvasReplica()
        r.apply(json(#"{"type":"welcome","seq":1,"resumed":false,"shapes":[\#(dot)]}"#))
        r.apply(json(#"{"type":"welcome","seq":1,"resumed":true,"shapes":[]}"#))
        #expect(r.shapes.count == 1)
    }

    @Test("Pending ops: committing ops wait for an answer and are resent after a reconnect; stale begins and updates are not")
    func pending() {
        var p = PendingOps(prefix: "c1")
        let a = p.makeID(), b = p.makeID(), c = p.makeID()
        #expect([a, b, c] == ["c1-1", "c1-2", "c1-3"])
        p.sent(id: a, text: "A", commits: true)
        p.sent(id: b, text: "B", commits: false)
        p.sent(id: c, text: "C", commits: true)
        #expect(p.ops.map(\.text) == ["A", "C"], "a begin or update is never acked, so it is not kept")
        #expect(p.answered(a) && !p.answered(a))
        #expect(p.toResend().map(\.text) == ["C"])
    }

    @Test("Reconnects back off exponentially with jitter, up to a cap, and start over after a success")
    func backoff() {
        var policy = ReconnectPolicy(base: 0.25, cap: 8)
        let delays = (0..<8).map { _ in policy.nextDelay(random: 1) }
        #expect(delays == [0.25, 0.5, 1, 2, 4, 8, 8, 8])
        #expect(policy.nextDelay(random: 0) == 4)
        policy.connected()
        #expect(policy.nextDelay(random: 1) == 0.25)
    }
}

@Suite("Keyboard nudges")
struct NudgeTests {
    @Test("[P13] A nudge moves by whole grid steps along one axis only, exactly (snap:false), ten at a time with Shift")
    func nudgeByGridSteps() {
        var r = CanvasReplica()
        r.apply(json(#"{"type":"welcome","seq":0,"resumed":false,"grid":{"width":640,"height":480,"x":{"divisions":8},"y":{"pitch":40}},"shapes":[]}"#))
        #expect(r.gridStep == (80, 40))
        #expect(r.nudge("a", dx: -1, dy: 0) == .move("a", phase: nil, translation: Point(x: -80, y: 0), snap: false))
        #expect(r.nudge("a", dx: 0, dy: 1, steps: 10) == .move("a", phase: nil, translation: Point(x: 0, y: 400), snap: false))
        #expect(r.nudge("a", dx: 1, dy: 0, snap: true) == .move("a", phase: nil, translation: Point(x: 80, y: 0)))
        // On the wire the exact nudge says so, and a snapping one leaves the field out.
        let exact = String(decoding: ClientMessage.op(id: "n", r.nudge("a", dx: -1, dy: 0)).encode(), as: UTF8.self)
        #expect(exact == #"{"type":"op","id":"n","op":"move","shape":"a","dx":-80,"dy":0,"snap":false}"#)
        #expect(!String(decoding: ClientMessage.op(id: "n", r.nudge("a", dx: 1, dy: 0, snap: true)).encode(), as: UTF8.self).contains("snap"))
    }
}
