import Testing

@testable import snapboard_client

@Suite("The terminal client's raster: text layout and connector lines")
struct CanvasTextTests {
    @Test("Text wraps between words at the width, breaks at line feeds and cuts words longer than a line", arguments: [
        ("a label that wraps", 14, ["a label that", "wraps"]),
        ("one\ntwo three", 20, ["one", "two three"]),
        ("abcdefghij", 4, ["abcd", "efgh", "ij"]),
        ("", 5, [""]),
    ])
    func wrap(text: String, width: Int, lines: [String]) {
        #expect(CanvasText.wrap(text, width: width) == lines)
    }

    @Test("A label is centred in its box and cut at its height; a text shape's starts at the top-left")
    func label() {
        let box = CanvasText.Box(top: 10, left: 20, bottom: 12, right: 29)
        let centred = CanvasText.label("hi", in: box, centred: true)
        #expect(centred.map(\.row) == [11, 11] && centred.map(\.column) == [24, 25])
        let topLeft = CanvasText.label("hi", in: box, centred: false)
        #expect(topLeft.map(\.row) == [10, 10] && topLeft.map(\.column) == [20, 21])
        let tall = CanvasText.label("a\nb\nc\nd", in: box, centred: true)
        #expect(Set(tall.map(\.row)) == [10, 11, 12])
    }

    @Test("A line of cells runs from end to end without gaps")
    func line() {
        let cells = CanvasText.line(from: (2, 3), to: (5, 12))
        #expect(cells.first! == (2, 3) && cells.last! == (5, 12))
        #expect(cells.count == 10)
        for (a, b) in zip(cells, cells.dropFirst()) { #expect(abs(a.row - b.row) <= 1 && abs(a.column - b.column) <= 1) }
    }

    @Test("A connector's character follows its slope on screen, an arrow's head its direction", arguments: [
        (0, 10, "─", ">"), (0, -10, "─", "<"), (8, 1, "│", "v"), (-8, 0, "│", "^"),
        (5, 5, "╲", ">"), (-5, 5, "╱", ">"), (5, -6, "╱", "<"), (7, -4, "╱", "v"), (2, 10, "─", ">"),
    ] as [(Int, Int, Character, Character)])
    func characters(dr: Int, dc: Int, stroke: Character, head: Character) {
        #expect(CanvasText.strokeCharacter(dr: dr, dc: dc) == stroke)
        #expect(CanvasText.headCharacter(dr: dr, dc: dc) == head)
    }
}
