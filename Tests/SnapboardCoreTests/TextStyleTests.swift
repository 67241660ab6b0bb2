import Foundation
import PropertyBased
import Testing

@testable import SnapboardCore

private extension Canvas {
    @discardableResult
    mutating func style(_ ids: [ShapeID], _ patch: StylePatch, by who: Participant = alice) throws -> Outcome {
        try apply(.style(ids, patch), by: who)
    }

    @discardableResult
    mutating func text(_ id: ShapeID, _ phase: GesturePhase?, _ text: String?, by who: Participant = alice) throws -> Outcome {
        try apply(.text(id, phase: phase, text: text), by: who)
    }
}

@Suite("Text, notes and style (1.7, P26)")
struct TextStyleTests {
    @Test("A colour set by hex or palette name comes back exactly from HSBColor.rgb, for every palette colour and a sweep of all 2^24")
    func exactColours() {
        for (_, rgb) in Palette.colours { #expect(HSBColor(rgb: rgb, alpha: 1).rgb == rgb) }
        var wrong: [UInt32] = []
        var rgb: UInt32 = 0
        while rgb <= 0xFF_FFFF {
            let colour = HSBColor(rgb: rgb, alpha: 0.8)
            if colour.rgb != rgb || !colour.isValid { wrong.append(rgb) }
            rgb += 97
        }
        for edge: UInt32 in [0x000000, 0xFFFFFF, 0xFF0000, 0x00FF00, 0x0000FF, 0xFFFF00, 0x00FFFF, 0xFF00FF, 0xFEFF00, 0x01FF00, 0x808080] {
            if HSBColor(rgb: edge, alpha: 1).rgb != edge { wrong.append(edge) }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5).map { Palette.hex($0) })")
        #expect(Palette.colour("#E03131") == 0xE03131 && Palette.colour("red") == 0xE03131 && Palette.hex(0x0C8599) == "#0c8599")
        for bad in ["", "#fff", "e03131", "#e0313", "#e031311", "#g03131", "Red", " red", "#e03131 "] { #expect(Palette.colour(bad) == nil, "\(bad)") }
    }

    @Test("style sets every field on every named shape as one commit; the same style again is unchanged")
    func styleCommits() throws {
        var canvas = try twoShapes()
        let patch = StylePatch(fill: 0x1971C2, stroke: 0xE03131, strokeWidth: 4, opacity: 0.5, fontSize: 32)
        let outcome = try canvas.style(["a", "b", "a"], patch)
        #expect(outcome.seq == 3 && Set(outcome.changed.map(\.id)) == ["a", "b"])
        guard case .edit(let changes)? = outcome.commit else { throw CancellationError() }
        #expect(changes.count == 2)
        for id in ["a", "b"] {
            let s = try #require(canvas.shape(id))
            #expect(s.fill.rgb == 0x1971C2 && s.fill.a == 0.8)
            #expect(s.style == ShapeStyle(stroke: 0xE03131, strokeWidth: 4, opacity: 0.5, fontSize: 32))
        }
        let again = try canvas.style(["a"], StylePatch(opacity: 0.5))
        #expect(again.unchanged && again.commit == nil && canvas.seq == 3)
        // Only what changes is committed.
        let one = try canvas.style(["a", "b"], StylePatch(strokeWidth: 4, fontSize: 12))
        #expect(canvas.seq == 4 && one.changed.map(\.id).sorted() == ["a", "b"])
        #expect(canvas.shape("a")?.style.strokeWidth == 4 && canvas.shape("b")?.style.fontSize == 12)
    }

    @Test("A style is refused whole: nothing set, a bad colour, a number out of range or not finite, an unknown, locked or leased shape")
    func styleRefusals() throws {
        var canvas = try twoShapes()
        let before = canvas.committedSnapshot
        expectRejection(.badStyle) { _ = try canvas.style(["a"], StylePatch()) }
        expectRejection(.badStyle) { _ = try canvas.style(["a"], StylePatch(fill: .max)) }
        expectRejection(.badStyle) { _ = try canvas.style(["a"], StylePatch(stroke: 0x100_0000)) }
        expectRejection(.outOfRange) { _ = try canvas.style(["a"], StylePatch(strokeWidth: 33)) }
        expectRejection(.outOfRange) { _ = try canvas.style(["a"], StylePatch(strokeWidth: -1)) }
        expectRejection(.outOfRange) { _ = try canvas.style(["a"], StylePatch(opacity: 0.05)) }
        expectRejection(.outOfRange) { _ = try canvas.style(["a"], StylePatch(fontSize: 161)) }
        expectRejection(.notFinite) { _ = try canvas.style(["a"], StylePatch(fontSize: .nan)) }
        expectRejection(.outOfRange) { _ = try canvas.style([], StylePatch(opacity: 1)) }
        expectRejection(.outOfRange) { _ = try canvas.style(Array(repeating: "a", count: 1_001), StylePatch(opacity: 1)) }
        expectRejection(.unknownShape) { _ = try canvas.style(["a", "ghost"], StylePatch(opacity: 0.5)) }
        _ = try canvas.apply(.lock(["b"], locked: true), by: alice)
        let locked = canvas.committedSnapshot
        expectRejection(.locked) { _ = try canvas.style(["a", "b"], StylePatch(opacity: 0.5)) }
        _ = try canvas.apply(.lock(["b"], locked: false), by: alice)
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: bob)
        expectRejection(.shapeLocked) { _ = try canvas.style(["a"], StylePatch(opacity: 0.5)) }
        #expect(canvas.committedSnapshot.shapes.map(ShapeLook.init) == before.shapes.map(ShapeLook.init))
        #expect(locked.shapes.map(ShapeLook.init) == before.shapes.map(ShapeLook.init))
    }

    @Test("Notes and texts take their kind's default frame and fill; a snap's style and text are kept; a bad text is refused")
    func snapKinds() throws {
        var canvas = try makeCanvas()
        let note = try canvas.apply(.snap(at: Point(x: 500, y: 500), shapeID: "n", spec: ShapeSpec(kind: "note")), by: alice).changed[0]
        #expect(note.kind == .note && note.size == Size(width: 200, height: 200))
        #expect(note.fill.rgb == Palette.noteFill && note.fill.a == 1 && note.text.isEmpty && note.style == .standard)
        let text = try canvas.apply(.snap(at: Point(x: 200, y: 200), shapeID: "t", spec: ShapeSpec(kind: "text")), by: alice).changed[0]
        #expect(text.kind == .text && text.size == Size(width: 240, height: 60) && text.fill.a == 0)
        var spec = ShapeSpec(kind: "roundedRect")
        spec.text = "Hello\n\twörld ✓"
        spec.style = StylePatch(fill: 0x2F9E44, stroke: 0x1E1E1E, fontSize: 40)
        let styled = try canvas.apply(.snap(at: Point(x: 800, y: 800), shapeID: "r", spec: spec), by: alice).changed[0]
        #expect(styled.text == "Hello\n\twörld ✓" && styled.fill.rgb == 0x2F9E44 && styled.fill.a == 0.8)
        #expect(styled.style == ShapeStyle(stroke: 0x1E1E1E, fontSize: 40))
        let seq = canvas.seq
        for bad in ["a\rb", "\u{0}", "bell\u{7}", "del\u{7F}", "c1\u{85}"] {
            spec.text = bad
            expectRejection(.badText) { _ = try canvas.apply(.snap(at: Point(x: 100, y: 100), shapeID: nil, spec: spec), by: alice) }
        }
        spec.text = String(repeating: "é", count: 2_049)
        expectRejection(.outOfRange) { _ = try canvas.apply(.snap(at: Point(x: 100, y: 100), shapeID: nil, spec: spec), by: alice) }
        spec.text = String(repeating: "é", count: 2_048)
        _ = try canvas.apply(.snap(at: Point(x: 100, y: 100), shapeID: "max", spec: spec), by: alice)
        #expect(canvas.seq == seq + 1 && canvas.shape("max")?.text.utf8.count == ShapeText.maxBytes)
    }

    @Test("A one-shot text commits once; the same text again is unchanged; a locked shape refuses it")
    func oneShotText() throws {
        var canvas = try twoShapes()
        let outcome = try canvas.text("a", nil, "Plan")
        #expect(outcome.seq == 3 && outcome.changed.map(\.text) == ["Plan"] && canvas.shape("a")?.text == "Plan")
        let same = try canvas.text("a", nil, "Plan")
        #expect(same.unchanged && same.commit == nil && canvas.seq == 3)
        _ = try canvas.apply(.lock(["a"], locked: true), by: alice)
        for phase: GesturePhase? in [nil, .begin, .update, .end] {
            expectRejection(.locked) { _ = try canvas.text("a", phase, "x") }
        }
        expectRejection(.badText) { _ = try canvas.text("b", nil, "tab\tok, cr\r not") }
        expectRejection(.unknownShape) { _ = try canvas.text("ghost", nil, "x") }
    }

    @Test("A text edit leases the shape without moving or restacking it; the holder's edit wins and others are refused until it ends")
    func textLease() throws {
        var canvas = try twoShapes()
        let zBefore = canvas.shape("a")!.z, versions = canvas.leaseVersion
        let begin = try canvas.text("a", .begin, nil)
        #expect(begin.commit == nil && begin.changed.isEmpty && canvas.seq == 2)
        #expect(canvas.shape("a")!.z == zBefore && canvas.leases["a"] == "alice" && canvas.leaseVersion != versions)
        expectRejection(.shapeLocked) { _ = try canvas.text("a", .begin, nil, by: bob) }
        expectRejection(.shapeLocked) { _ = try canvas.text("a", nil, "mine", by: bob) }
        expectRejection(.shapeLocked) { _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: bob) }
        expectRejection(.shapeLocked) { _ = try canvas.apply(.delete(["a"]), by: bob) }
        expectRejection(.shapeLocked) { _ = try canvas.apply(.order(["a"], to: .front), by: bob) }
        // One session never runs a text edit and a gesture on one shape at once.
        expectRejection(.shapeLocked) { _ = try canvas.apply(.move("a", phase: .begin, translation: Point(x: 5, y: 0)), by: alice) }
        try canvas.text("a", .update, "Dra")
        try canvas.text("a", .update, "Draft")
        #expect(canvas.shape("a")?.text == "" && canvas.seq == 2)
        let end = try canvas.text("a", .end, "Draft done")
        #expect(end.seq == 3 && canvas.shape("a")?.text == "Draft done" && canvas.leases["a"] == nil)
        #expect(canvas.shape("a")!.z == zBefore)
        // And a shape someone drags cannot be text-edited.
        _ = try canvas.apply(.move("b", phase: .begin, translation: .zero), by: bob)
        expectRejection(.shapeLocked) { _ = try canvas.text("b", .begin, nil) }
        expectRejection(.noGesture) { _ = try canvas.text("a", .update, "late") }
    }

    @Test("A lapsed or abandoned text edit commits its last draft; one with no draft, or the committed text, commits nothing")
    func textLapse() throws {
        var canvas = try twoShapes()
        try canvas.text("a", .begin, nil)
        try canvas.text("a", .update, "kept")
        let ended = canvas.endGesture(on: "a")
        let lapsed = try #require(ended)
        #expect(lapsed.seq == 3 && canvas.shape("a")?.text == "kept")
        try canvas.text("b", .begin, nil, by: bob)
        let nothing = canvas.endGestures(ownedBy: "bob")
        #expect(nothing.count == 1 && nothing[0].unchanged && canvas.seq == 3 && canvas.leases.isEmpty)
        try canvas.text("a", .begin, "kept")
        let same = try canvas.text("a", .end, "kept")
        #expect(same.unchanged && canvas.seq == 3)
    }

    @Test("Undo of a style or text puts the look back; a shape restyled since is skipped changed_since")
    func undoLooks() throws {
        var canvas = try twoShapes()
        let before = ShapeLook(of: canvas.shape("a")!)
        let styled = try canvas.style(["a", "b"], StylePatch(fill: 0xE03131, opacity: 0.6)).commit!
        let texted = try canvas.text("a", nil, "hi").commit!
        let undoText = try #require(canvas.reverting(texted).effect)
        _ = canvas.apply(effect: undoText)
        #expect(canvas.shape("a")?.text == "" && canvas.shape("a")?.style.opacity == 0.6)
        try canvas.style(["b"], StylePatch(opacity: 0.9), by: bob)
        let (undoStyle, skipped) = canvas.reverting(styled)
        #expect(skipped.map(\.shape) == ["b"] && skipped.map(\.code) == [.changedSince])
        _ = canvas.apply(effect: try #require(undoStyle))
        #expect(ShapeLook(of: canvas.shape("a")!) == before && canvas.shape("b")?.style.opacity == 0.9)
        _ = try canvas.apply(.lock(["a"], locked: true), by: alice)
        let (none, lockedSkip) = canvas.reverting(undoStyle!)
        #expect(none == nil && lockedSkip.map(\.code) == [.locked])
    }

    @Test("Property: replaying committed styles, texts, groups, duplicates and their undos on an earlier snapshot gives the same canvas, through JSON too")
    func replayLooks() async {
        await propertyCheck(count: 30, input: Gen.uint64(), Gen.int(in: 0...149)) { seed, checkpointAt in
            var config = CanvasConfig()
            config.width = 1000
            config.height = 1000
            var live = try Canvas(id: "looks", config: config)
            var session = RandomSession(seed: seed)
            var rng = SeededGenerator(state: seed ^ 0x51ED)
            var checkpoint = live.committedSnapshot
            var log: [CommittedOp] = [], effects: [CommittedOp] = []
            let words = ["", "a", "note", "two\nlines", "ünï ✓", "tab\there"]
            for step in 0..<150 {
                if step == checkpointAt {
                    checkpoint = live.committedSnapshot
                    log.removeAll()
                }
                let ids = live.shapes.map(\.id)
                let one = ids.randomElement(using: &rng) ?? "ghost"
                let named = ids.isEmpty ? ["ghost"] : (0..<Int.random(in: 1...3, using: &rng)).map { _ in ids.randomElement(using: &rng)! }
                let op: CanvasOp, who: Participant
                switch Int.random(in: 0..<15, using: &rng) {
                case 0..<2:
                    let patch = StylePatch(fill: Bool.random(using: &rng) ? Palette.colours.randomElement(using: &rng)!.rgb : nil,
                                           stroke: Bool.random(using: &rng) ? UInt32.random(in: 0...0xFF_FFFF, using: &rng) : nil,
                                           strokeWidth: Bool.random(using: &rng) ? Double.random(in: 0...32, using: &rng) : nil,
                                           opacity: Bool.random(using: &rng) ? Double.random(in: 0.1...1, using: &rng) : nil,
                                           fontSize: Bool.random(using: &rng) ? 24 : nil)
                    (op, who) = (.style(named, patch), session.participants[0])
                case 2..<4:
                    let phases: [GesturePhase?] = [nil, .begin, .update, .end]
                    (op, who) = (.text(one, phase: phases.randomElement(using: &rng)!, text: words.randomElement(using: &rng)!),
                                 session.participants[Int.random(in: 0...1, using: &rng)])
                case 4 where !effects.isEmpty:
                    if let undo = live.reverting(effects.randomElement(using: &rng)!).effect {
                        let commit = live.apply(effect: undo).commit!
                        log.append(commit)
                        effects.append(commit)
                    }
                    continue
                case 5:
                    (op, who) = (.snap(at: Point(x: Double.random(in: 0...1000, using: &rng), y: Double.random(in: 0...1000, using: &rng)),
                                       shapeID: nil, spec: ShapeSpec(kind: ["note", "text"].randomElement(using: &rng)!)), session.participants[0])
                case 6: (op, who) = (.group(named + [one]), session.participants[0])
                case 7: (op, who) = (.ungroup([one]), session.participants[1])
                case 8: (op, who) = (.duplicate(named, ids: nil), session.participants[0])
                default: (op, who) = session.next(on: live)
                }
                if let commit = try? live.apply(op, by: who).commit {
                    log.append(commit)
                    effects.append(commit)
                }
            }
            for outcome in live.endGestures(ownedBy: session.participants[0].id) + live.endGestures(ownedBy: session.participants[1].id) {
                if let commit = outcome.commit { log.append(commit) }
            }
            var recovered = try Canvas(snapshot: checkpoint)
            for op in log { recovered.replay(op) }
            #expect(recovered.committedSnapshot == live.committedSnapshot, "seed \(seed) checkpoint \(checkpointAt)")
            let json = try JSONEncoder().encode(live.committedSnapshot)
            #expect(try JSONDecoder().decode(CanvasSnapshot.self, from: json) == live.committedSnapshot, "seed \(seed)")
            let ops = try JSONDecoder().decode([CommittedOp].self, from: JSONEncoder().encode(log))
            #expect(ops == log, "seed \(seed)")
        }
    }
}
