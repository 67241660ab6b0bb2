import Testing

@testable import SnapboardCore
@testable import SnapboardStore

@Suite("The op log row format: stable hatch codes")
struct LogCodecHatchTests {
    @Test("Hatch bytes on disk are pinned: none 0, hatch 1, crossHatch 2, whatever the enum's order")
    func hatchCodes() {
        #expect(Hatch.allCases.map(LogCodec.code(of:)).sorted() == [0, 1, 2])
        #expect(LogCodec.code(of: .none) == 0 && LogCodec.code(of: .hatch) == 1 && LogCodec.code(of: .crossHatch) == 2)
        for hatch in Hatch.allCases { #expect(LogCodec.hatch(code: LogCodec.code(of: hatch)) == hatch) }
        #expect(LogCodec.hatch(code: 3) == nil)
    }

    @Test("A created shape with each hatch reads back the same")
    func roundTrip() throws {
        for hatch in Hatch.allCases {
            let shape = Shape(id: "s", kind: .star(points: 5, innerRatio: 0.5), center: Point(x: 1, y: 2), size: Size(width: 3, height: 4),
                              scale: 1.5, rotation: 0.25, fill: .seedDefault(hue: 0.3), hatch: hatch, z: 7)
            #expect(try LogCodec.decode(LogCodec.encode(.create(shape, rng: 42))) == .create(shape, rng: 42))
        }
    }
}

@Suite("The op log row format: orders, locks and locked shapes (1.6)")
struct LogCodecOrderLockTests {
    static func shape(_ id: ShapeID, locked: Bool) -> Shape {
        Shape(id: id, kind: .polygon(sides: 6), center: Point(x: 1, y: 2), size: Size(width: 3, height: 4),
              fill: .seedDefault(hue: 0.3), z: -7, locked: locked)
    }

    @Test("order and lock rows, and rows with locked shapes, read back the same")
    func roundTrips() throws {
        let ops: [CommittedOp] = [
            .order([ZMove(id: "a", z: 9, before: -3), ZMove(id: "b-2", z: Canvas.maxZ, before: -Canvas.maxZ)]),
            .lock(["a", "b"], locked: true), .lock(["c"], locked: false),
            .clear(removed: [Self.shape("a", locked: true), Self.shape("b", locked: false)]),
            .restore([Self.shape("a", locked: true)]), .remove([Self.shape("a", locked: false)]),
        ]
        for op in ops { #expect(try LogCodec.decode(LogCodec.encode(op)) == op) }
    }

    @Test("A row without a locked shape keeps format 1, readable by servers before 1.6; one with a locked shape is format 2")
    func formats() {
        #expect(LogCodec.encode(.restore([Self.shape("a", locked: false)])).first == 1)
        #expect(LogCodec.encode(.restore([Self.shape("a", locked: true)])).first == 2)
        #expect(LogCodec.encode(.lock(["a"], locked: true)).prefix(2) == [1, 9])
        #expect(LogCodec.encode(.order([ZMove(id: "a", z: 1, before: 0)])).prefix(2) == [1, 8])
    }

    @Test("Damaged order and lock rows are refused, never trapped on: truncated, a huge count, a bad flag")
    func damaged() {
        let order = LogCodec.encode(.order([ZMove(id: "a", z: 1, before: 0)]))
        let lock = LogCodec.encode(.lock(["a"], locked: true))
        let flagged = LogCodec.encode(.restore([Self.shape("a", locked: true)]))
        for bytes in [Array(order.dropLast()), Array(lock.dropLast()), [1, 8, 255, 255, 255, 255], [1, 9, 2, 1, 0, 0, 0, 1, 0, 97],
                      Array(flagged.dropLast()) + [4]] {
            #expect(throws: (any Error).self) { try LogCodec.decode(bytes) }
        }
    }

    static func looked(_ id: String, kind: ShapeKind = .note, text: String = "Plan ✓\nnext", locked: Bool = false) -> Shape {
        Shape(id: id, kind: kind, center: Point(x: 10, y: 20), size: Size(width: 200, height: 200), fill: HSBColor(rgb: 0xFFEC99, alpha: 1),
              z: 3, locked: locked, style: ShapeStyle(stroke: 0xE03131, strokeWidth: 0, opacity: 0.5, fontSize: 160), text: text)
    }

    @Test("[P26] Texts, notes, styles and edit rows read back the same; a shape with a look is format 2, a plain one stays format 1")
    func looks() throws {
        let plain = Shape(id: "t", kind: .text, center: Point(x: 1, y: 2), size: Size(width: 240, height: 60), fill: HSBColor(h: 0, s: 0, b: 1, a: 0), z: 1)
        let before = ShapeLook(of: plain), after = ShapeLook(of: Self.looked("x"))
        let ops: [CommittedOp] = [
            .create(Self.looked("n"), rng: 42), .create(plain, rng: 7),
            .clear(removed: [Self.looked("a", locked: true), Self.looked("b", kind: .roundedRect, text: ""), plain]),
            .restore([Self.looked("a", text: String(repeating: "é", count: 2_048))]),
            .edit([LookChange(id: "a", look: after, before: before), LookChange(id: "b", look: before, before: after)]),
        ]
        for op in ops { #expect(try LogCodec.decode(LogCodec.encode(op)) == op) }
        #expect(LogCodec.encode(.create(plain, rng: 7)).first == 1)
        #expect(LogCodec.encode(.create(Self.looked("n"), rng: 1)).first == 2)
        #expect(LogCodec.encode(.edit([LookChange(id: "a", look: after, before: before)])).prefix(2) == [1, 10])
    }

    @Test("[P28] Connectors and reconnects read back, every anchor; a bound connector is format 2; a damaged binding is refused")
    func connectors() throws {
        let named = Shape(id: "c", kind: .arrow, center: Point(x: 10, y: 20), size: Size(width: 300, height: Shape.connectorThickness),
                          rotation: 0.5, fill: HSBColor(h: 0, s: 0, b: 0, a: 0), z: 4,
                          from: Binding(shape: "a", anchor: .left), to: Binding(shape: "b", anchor: .point(u: 0.25, v: -0.5)))
        var loose = named
        (loose.kind, loose.from, loose.to) = (.line, nil, Binding(shape: "b", anchor: .center))
        var free = named
        (free.kind, free.from, free.to) = (.line, nil, nil)
        let ops: [CommittedOp] = [
            .create(named, rng: 3), .create(free, rng: 3), .restore([named, loose, free]), .reconnect(named, before: loose),
        ] + Anchor.named.map { anchor in .reconnect(Shape(id: "x", kind: .line, center: .zero, size: Size(width: 0, height: 16), fill: named.fill, z: 0,
                                                           from: Binding(shape: "t", anchor: anchor)), before: free) }
        for op in ops { #expect(try LogCodec.decode(LogCodec.encode(op)) == op) }
        #expect(LogCodec.encode(.create(named, rng: 1)).first == 2 && LogCodec.encode(.create(free, rng: 1)).first == 1)
        var badAnchor = LogCodec.encode(.create(named, rng: 1))
        // The from end's anchor byte follows its flag and the id "a": flags at 2 + 3 + 1 + 80 + 1 + 8.
        let flagsAt = 2 + 3 + 1 + 80 + 1 + 8
        #expect(badAnchor[flagsAt] == 4 && badAnchor[flagsAt + 1] == 1)
        badAnchor[flagsAt + 1 + 1 + 3] = 6
        var badFlag = LogCodec.encode(.create(named, rng: 1))
        badFlag[flagsAt] = 8
        for bytes in [badAnchor, badFlag, Array(LogCodec.encode(.reconnect(named, before: loose)).dropLast())] {
            #expect(throws: (any Error).self) { try LogCodec.decode(bytes) }
        }
        var outside = named
        outside.to = Binding(shape: "b", anchor: .point(u: 0.75, v: 0))
        #expect(CommittedOp.create(outside, rng: 1).problem(in: CanvasConfig()) != nil)
        #expect(CommittedOp.reconnect(named, before: Self.looked("n")).problem(in: CanvasConfig()) != nil)
        // A scale near 0 would make a pinch's limits infinite: make fuzz found one, stored, then pinched.
        var tiny = named
        tiny.scale = 1e-300
        #expect(CommittedOp.create(tiny, rng: 1).problem(in: CanvasConfig()) != nil)
    }

    @Test("[P29] An arrange reads back; a damaged one (truncated, a count the row cannot hold) is refused")
    func arrange() throws {
        func placement(_ id: String, _ x: Double) -> Placement {
            Placement(of: Shape(id: id, kind: .dot, center: Point(x: x, y: 2), size: Size(width: 24, height: 24), scale: 1.5, rotation: 0.25,
                                fill: HSBColor(h: 0, s: 0, b: 0, a: 1), z: Int(x)))
        }
        let op = CommittedOp.arrange([placement("a", 10), placement("bb", 20)], before: [placement("a", 1), placement("bb", 2)])
        let bytes = LogCodec.encode(op)
        #expect(try LogCodec.decode(bytes) == op && bytes.prefix(2) == [1, 12])
        for bad in [Array(bytes.dropLast()), [1, 12, 255, 255, 255, 255]] { #expect(throws: (any Error).self) { try LogCodec.decode(bad) } }
        #expect(CommittedOp.arrange([placement("a", 10)], before: []).problem(in: CanvasConfig()) != nil)
        #expect(CommittedOp.arrange([placement("a", 10)], before: [placement("b", 1)]).problem(in: CanvasConfig()) != nil)
    }

    @Test("[P27] Groups read back with their shapes and in edit rows; a grouped shape is format 2; a damaged group id is refused on load")
    func groups() throws {
        var grouped = Shape(id: "g", kind: .roundedRect, center: Point(x: 1, y: 2), size: Size(width: 100, height: 100), fill: HSBColor(h: 0.5, s: 0.5, b: 0.5, a: 0.8), z: 1)
        grouped.group = "g12-3"
        let before = ShapeLook(of: Self.looked("a")), after = ShapeLook(of: Self.looked("a")).regrouped("g7")
        let ops: [CommittedOp] = [
            .create(grouped, rng: 1), .restore([grouped, Self.looked("b")]),
            .edit([LookChange(id: "a", look: after, before: before), LookChange(id: "a", look: before, before: after)]),
        ]
        for op in ops { #expect(try LogCodec.decode(LogCodec.encode(op)) == op) }
        #expect(LogCodec.encode(.create(grouped, rng: 1)).first == 2)
        var bad = grouped
        bad.group = "no spaces"
        #expect(CommittedOp.create(bad, rng: 1).problem(in: CanvasConfig()) != nil)
        #expect(CommittedOp.edit([LookChange(id: "a", look: before.regrouped(String(repeating: "x", count: 65)), before: before)]).problem(in: CanvasConfig()) != nil)
    }

    @Test("[P26] Damaged look rows are refused, never trapped on: truncated, a huge count, a stroke beyond 24 bits, an unknown flag or kind")
    func damagedLooks() {
        let edit = LogCodec.encode(.edit([LookChange(id: "a", look: ShapeLook(of: Self.looked("a")), before: ShapeLook(of: Self.looked("a", text: "")))]))
        var badStroke = LogCodec.encode(.create(Self.looked("n"), rng: 1))
        // The stroke follows the flags byte, after id, kind, ten f64s, the hatch and z: 2 + 3 + 1 + 80 + 1 + 8 + 1.
        let strokeAt = 2 + 3 + 1 + 80 + 1 + 8 + 1
        badStroke.replaceSubrange(strokeAt..<(strokeAt + 8), with: [0, 0, 0, 1, 0, 0, 0, 0])
        var badFlag = LogCodec.encode(.create(Self.looked("n"), rng: 1))
        badFlag[strokeAt - 1] = 4
        var badKind = LogCodec.encode(.create(Self.looked("n"), rng: 1))
        badKind[5] = 11
        for bytes in [Array(edit.dropLast()), [1, 10, 255, 255, 255, 255], badStroke, badFlag, badKind] {
            #expect(throws: (any Error).self) { try LogCodec.decode(bytes) }
        }
    }
}

private extension ShapeLook {
    func regrouped(_ group: String?) -> ShapeLook {
        var look = self
        look.group = group
        return look
    }
}
