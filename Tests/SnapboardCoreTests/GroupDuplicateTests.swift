import Testing

@testable import SnapboardCore

@Suite("Group, ungroup and duplicate (1.7, P27)")
struct GroupDuplicateTests {
    /// Shapes `a` (300, 300), `b` (700, 700) and `c` (500, 200).
    func threeShapes(grid: Bool = false) throws -> Canvas {
        var canvas = try twoShapes(grid: grid)
        try canvas.add("c", at: Point(x: 500, y: 200))
        return canvas
    }

    @Test("group puts the shapes in one new group as one commit; the same group again is unchanged; ungroup dissolves it")
    func groupAndUngroup() throws {
        var canvas = try threeShapes()
        let grouped = try canvas.apply(.group(["a", "b", "a"]), by: alice)
        #expect(grouped.seq == 4 && Set(grouped.changed.map(\.id)) == ["a", "b"])
        let id = try #require(canvas.shape("a")?.group)
        #expect(id == "g4" && canvas.shape("b")?.group == id && canvas.shape("c")?.group == nil)
        guard case .edit(let changes)? = grouped.commit else { throw CancellationError() }
        #expect(changes.allSatisfy { $0.before.group == nil && $0.look.group == id && $0.look.sameLooks(as: $0.before) })

        let again = try canvas.apply(.group(["b", "a"]), by: bob)
        #expect(again.unchanged && again.commit == nil && canvas.seq == 4)

        // Naming one member ungroups them all.
        let ungrouped = try canvas.apply(.ungroup(["b"]), by: bob)
        #expect(ungrouped.seq == 5 && Set(ungrouped.changed.map(\.id)) == ["a", "b"])
        #expect(canvas.shapes.allSatisfy { $0.group == nil })
        let none = try canvas.apply(.ungroup(["a", "c"]), by: bob)
        #expect(none.unchanged && canvas.seq == 5)
    }

    @Test("Groups are flat: grouping a member with another shape takes its whole group into the new one")
    func groupsAreFlat() throws {
        var canvas = try threeShapes()
        _ = try canvas.apply(.group(["a", "b"]), by: alice)
        let outcome = try canvas.apply(.group(["a", "c"]), by: alice)
        let id = try #require(canvas.shape("c")?.group)
        #expect(Set(outcome.changed.map(\.id)) == ["a", "b", "c"])
        #expect(canvas.shapes.allSatisfy { $0.group == id } && id != "g4")
        // A single shape and its own group of two: grouping needs two shapes in all.
        var solo = try twoShapes()
        expectRejection(.outOfRange) { _ = try solo.apply(.group(["a"]), by: alice) }
        expectRejection(.outOfRange) { _ = try solo.apply(.group(["a", "a"]), by: alice) }
    }

    @Test("group and ungroup are refused whole: an unknown shape, a shape under a gesture (named or a member), more than 1,000")
    func groupRefusals() throws {
        var canvas = try threeShapes()
        let before = canvas.committedSnapshot
        expectRejection(.unknownShape) { _ = try canvas.apply(.group(["a", "ghost"]), by: alice) }
        expectRejection(.outOfRange) { _ = try canvas.apply(.group([]), by: alice) }
        expectRejection(.outOfRange) { _ = try canvas.apply(.ungroup(Array(repeating: "a", count: 1_001)), by: alice) }
        _ = try canvas.apply(.move("c", phase: .begin, translation: .zero), by: bob)
        expectRejection(.shapeLocked) { _ = try canvas.apply(.group(["a", "c"]), by: alice) }
        _ = try canvas.apply(.move("c", phase: .end, translation: .zero), by: bob)
        #expect(canvas.committedSnapshot == before)
        _ = try canvas.apply(.group(["a", "c"]), by: alice)
        let grouped = canvas.committedSnapshot
        _ = try canvas.apply(.text("c", phase: .begin, text: nil), by: bob)
        expectRejection(.shapeLocked) { _ = try canvas.apply(.ungroup(["a"]), by: alice) }
        expectRejection(.shapeLocked) { _ = try canvas.apply(.group(["a", "b"]), by: alice) }
        #expect(canvas.committedSnapshot == grouped)
    }

    @Test("A locked shape may be grouped and ungrouped; undo of a group puts the groups back, even on a locked shape")
    func lockedAndUndo() throws {
        var canvas = try threeShapes()
        _ = try canvas.apply(.lock(["b"], locked: true), by: alice)
        let first = try #require(try canvas.apply(.group(["a", "b"]), by: alice).commit)
        let second = try #require(try canvas.apply(.group(["b", "c"]), by: alice).commit)
        let merged = try #require(canvas.shape("c")?.group)
        #expect(canvas.shapes.allSatisfy { $0.group == merged })
        _ = canvas.apply(effect: try #require(canvas.reverting(second).effect))
        #expect(canvas.shape("a")?.group == "g5" && canvas.shape("b")?.group == "g5" && canvas.shape("c")?.group == nil)
        let (undoFirst, skipped) = canvas.reverting(first)
        #expect(skipped.isEmpty)
        _ = canvas.apply(effect: try #require(undoFirst))
        #expect(canvas.shapes.allSatisfy { $0.group == nil })
    }

    @Test("A group and a style are undone independently: undoing a style after a regroup keeps the group, and the reverse")
    func independentUndo() throws {
        var canvas = try threeShapes()
        let styled = try #require(try canvas.apply(.style(["a", "b"], StylePatch(opacity: 0.5)), by: alice).commit)
        let grouped = try #require(try canvas.apply(.group(["a", "b"]), by: bob).commit)
        let group = canvas.shape("a")?.group
        let (undoStyle, skipped) = canvas.reverting(styled)
        #expect(skipped.isEmpty)
        _ = canvas.apply(effect: try #require(undoStyle))
        #expect(canvas.shape("a")?.style.opacity == 1 && canvas.shape("a")?.group == group)
        _ = try canvas.apply(.style(["a"], StylePatch(opacity: 0.3)), by: alice)
        _ = canvas.apply(effect: try #require(canvas.reverting(grouped).effect))
        #expect(canvas.shape("a")?.group == nil && canvas.shape("a")?.style.opacity == 0.3)
        // A member regrouped since is skipped changed_since.
        let again = try #require(try canvas.apply(.group(["a", "b"]), by: bob).commit)
        _ = try canvas.apply(.group(["b", "c"]), by: alice)
        let (_, changed) = canvas.reverting(again)
        #expect(Set(changed.map(\.shape)) == ["a", "b"] && changed.allSatisfy { $0.code == .changedSince })
    }

    @Test("duplicate copies one grid step right and down, on top in their order, unlocked, with looks, text and new groups")
    func duplicateCopies() throws {
        var canvas = try threeShapes(grid: true)
        _ = try canvas.apply(.style(["a"], StylePatch(fill: 0x1971C2, stroke: 0xE03131, opacity: 0.5)), by: alice)
        _ = try canvas.apply(.text("a", phase: nil, text: "hello"), by: alice)
        _ = try canvas.apply(.group(["a", "b"]), by: alice)
        _ = try canvas.apply(.lock(["b"], locked: true), by: alice)
        _ = try canvas.apply(.order(["a"], to: .front), by: alice)
        let before = canvas.shapes
        let topZ = before.map(\.z).max()!
        let outcome = try canvas.apply(.duplicate(["a", "b", "c"], ids: nil), by: alice)
        guard case .restore(let copies)? = outcome.commit else { throw CancellationError() }
        #expect(copies.count == 3 && canvas.shapes.count == 6)
        // Stacked above everything in their drawing order: b, c, a.
        let originals = ["b", "c", "a"].map { id in before.first { $0.id == id }! }
        #expect(copies.map(\.z) == [topZ + 1, topZ + 2, topZ + 3])
        for (copy, original) in zip(copies, originals) {
            #expect(copy.id != original.id && canvas.shape(copy.id) == copy)
            #expect(copy.center == Point(x: original.center.x + 100, y: original.center.y + 100))
            #expect(copy.kind == original.kind && copy.size == original.size && copy.rotation == original.rotation)
            #expect(ShapeLook(of: copy).sameLooks(as: ShapeLook(of: original)) && !copy.locked)
        }
        let copyA = copies[2], copyB = copies[0], copyC = copies[1]
        #expect(copyA.text == "hello" && copyA.group != nil && copyA.group == copyB.group && copyA.group != before[0].group)
        #expect(copyC.group == nil)
        // One undo removes every copy.
        let undo = try #require(canvas.reverting(outcome.commit!).effect)
        _ = canvas.apply(effect: undo)
        #expect(canvas.shapes == before)
    }

    @Test("duplicate takes the ids the client chose, in the order named, or refuses them whole")
    func duplicateIDs() throws {
        var canvas = try threeShapes()
        let outcome = try canvas.apply(.duplicate(["c", "a"], ids: ["c2", "a2"]), by: alice)
        #expect(canvas.shape("c2")?.kind == canvas.shape("c")?.kind && canvas.shape("a2") != nil && outcome.changed.count == 2)
        let before = canvas.committedSnapshot
        expectRejection(.badShapeID) { _ = try canvas.apply(.duplicate(["a"], ids: ["a2"]), by: alice) }
        expectRejection(.badShapeID) { _ = try canvas.apply(.duplicate(["a", "b"], ids: ["x", "x"]), by: alice) }
        expectRejection(.badShapeID) { _ = try canvas.apply(.duplicate(["a", "b"], ids: ["x"]), by: alice) }
        expectRejection(.badShapeID) { _ = try canvas.apply(.duplicate(["a"], ids: ["no spaces"]), by: alice) }
        expectRejection(.badShapeID) { _ = try canvas.apply(.duplicate(["a"], ids: [String(repeating: "x", count: 65)]), by: alice) }
        expectRejection(.unknownShape) { _ = try canvas.apply(.duplicate(["a", "ghost"], ids: nil), by: alice) }
        expectRejection(.outOfRange) { _ = try canvas.apply(.duplicate([], ids: nil), by: alice) }
        expectRejection(.outOfRange) { _ = try canvas.apply(.duplicate(Array(repeating: "a", count: 1_001), ids: nil), by: alice) }
        #expect(canvas.committedSnapshot == before)
    }

    @Test("duplicate is refused whole when the canvas cannot hold the copies or has no z room; a shape under a gesture is copied as committed")
    func duplicateLimits() throws {
        var full = try makeCanvas { $0.maxShapes = 3 }
        try full.add("a", at: Point(x: 300, y: 300))
        try full.add("b", at: Point(x: 600, y: 600))
        expectRejection(.canvasFull) { _ = try full.apply(.duplicate(["a", "b"], ids: nil), by: alice) }
        #expect(try full.apply(.duplicate(["a"], ids: nil), by: alice).changed.count == 1)

        var canvas = try twoShapes()
        let committed = try #require(canvas.shape("a"))
        _ = try canvas.apply(.move("a", phase: .begin, translation: .zero), by: bob)
        _ = try canvas.apply(.move("a", phase: .update, translation: Point(x: 150, y: 0)), by: bob)
        let copy = try canvas.apply(.duplicate(["a"], ids: ["a2"]), by: alice).changed[0]
        #expect(copy.center == Point(x: committed.center.x + 100, y: committed.center.y + 100))

        // The z's run out: one z is left, room for one copy but not two.
        var top = try twoShapes()
        top.nextZ = Canvas.maxZ
        expectRejection(.outOfRange) { _ = try top.apply(.duplicate(["a", "b"], ids: nil), by: alice) }
        #expect(try top.apply(.duplicate(["a"], ids: nil), by: alice).changed.map(\.z) == [Canvas.maxZ])
    }

    @Test("On a bounded canvas a copy stays inside; on a layout canvas each copy takes the nearest free cell, or is refused layout_full")
    func duplicatePlacement() throws {
        var canvas = try makeCanvas()
        try canvas.add("edge", at: Point(x: 950, y: 950))
        let copy = try canvas.apply(.duplicate(["edge"], ids: nil), by: alice).changed[0]
        #expect(copy.bounds.maxX <= 1000 && copy.bounds.maxY <= 1000)

        var layout = try makeCanvas { $0.layout = .flexible(rows: 2, columns: 2); $0.layoutPadding = 10 }
        try layout.add("p", at: Point(x: 250, y: 250))
        try layout.add("q", at: Point(x: 750, y: 250))
        let copies = try layout.apply(.duplicate(["p", "q"], ids: nil), by: alice).changed
        let grid = layout.layout!
        let cells = Set(layout.shapes.map { grid.key(row: grid.cell(at: $0.center).row, column: grid.cell(at: $0.center).column) })
        #expect(copies.count == 2 && cells.count == 4)
        let before = layout.committedSnapshot
        expectRejection(.layoutFull) { _ = try layout.apply(.duplicate(["p"], ids: nil), by: alice) }
        #expect(layout.committedSnapshot == before)
    }
}
