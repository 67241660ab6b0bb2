import Foundation
import SnapboardCore
import Testing

@testable import SnapboardRender

/// Canvases with protocol 1.7's looks (P26): a note, a text and a styled shape.
private func looked(_ shapes: [Shape], width: Double = 800, height: Double = 600) -> CanvasSnapshot {
    var config = CanvasConfig()
    (config.width, config.height) = (width, height)
    return CanvasSnapshot(id: "looks", config: config, seq: shapes.count, rng: 1, shapes: shapes)
}

private func note(_ text: String, at center: Point = Point(x: 200, y: 200), style: ShapeStyle = ShapeStyle(fontSize: 28), rotation: Double = 0) -> Shape {
    Shape(id: "note", kind: .note, center: center, size: Size(width: 200, height: 200), rotation: rotation,
          fill: HSBColor(rgb: Palette.noteFill, alpha: 1), z: 0, style: style, text: text)
}

@Suite("Export of looks and text (1.7, P26)")
struct LooksRenderTests {
    @Test("Text wraps as the page wraps it: at line feeds, between words at the width, inside a word only when it is wider than a line")
    func wrapping() {
        let one: (Character) -> Double = { _ in 1 }
        #expect(TextArt.wrap("aaa bbb ccc", width: 7, advance: one) == ["aaa bbb", "ccc"])
        #expect(TextArt.wrap("aaa bbb ccc", width: 100, advance: one) == ["aaa bbb ccc"])
        #expect(TextArt.wrap("one\n\ntwo", width: 100, advance: one) == ["one", "", "two"])
        #expect(TextArt.wrap("abcdefghij", width: 4, advance: one) == ["abcd", "efgh", "ij"])
        #expect(TextArt.wrap("hi abcdefghij", width: 4, advance: one) == ["hi", "abcd", "efgh", "ij"])
        // As the page does: the spaces past the width start a line of their own, drawn empty.
        #expect(TextArt.wrap("trailing   ", width: 8, advance: one) == ["trailing", ""])
        #expect(TextArt.wrap("trailing   ", width: 20, advance: one) == ["trailing"])
        #expect(TextArt.wrap("", width: 8, advance: one) == [""])
    }

    @Test("The SVG writes a shape's text, every character escaped, wrapped in its frame, in its ink, turned with the shape")
    func svgText() throws {
        let hostile = #"<script>alert("x")</script> & 'friends' ]]> line"# + "\nsecond line"
        let shapes = [note(hostile, rotation: 0.5),
                      Shape(id: "label", kind: .text, center: Point(x: 500, y: 100), size: Size(width: 240, height: 60),
                            fill: HSBColor(h: 0, s: 0, b: 1, a: 0), z: 1, style: ShapeStyle(stroke: 0xE03131), text: "top left")]
        let svg = SVGRenderer.render(CanvasPicture(looked(shapes)))
        let xml = ParsedXML(svg)
        #expect(xml.error == nil, "\(xml.error ?? "")")
        #expect(!svg.contains("<script>"))
        let texts = xml.elements.filter { $0.name == "text" }
        #expect(texts.count == 2)
        let lines = xml.elements.filter { $0.name == "tspan" }
        #expect(lines.count >= 4, "the note's first paragraph wraps at 176 units: \(lines.count) lines")
        // The parser gives back exactly the characters written.
        #expect(xml.text["tspan"]?.contains(#"<script>alert("x")</script> & 'friends' ]]>"#) == true || xml.text["tspan"]?.contains("<script>alert(") == true)
        let noteText = try #require(texts.first)
        #expect(noteText.attributes["text-anchor"] == "middle" && noteText.attributes["font-size"] == "28" && noteText.attributes["fill"] == "#1e1e1e")
        let cs = cos(0.5), sn = sin(0.5)
        let matrix = try #require(noteText.attributes["transform"])
        #expect(matrix.hasPrefix("matrix(\(String(format: "%.6f", cs).trimmingTrailingZeros) \(String(format: "%.6f", sn).trimmingTrailingZeros) "), "\(matrix)")
        let label = try #require(texts.last)
        #expect(label.attributes["text-anchor"] == "start" && label.attributes["fill"] == "#e03131")
        // A text shape draws no fill and no outline; the note does both.
        let groups = xml.elements.filter { $0.attributes["class"] == "shape" }.map { $0.attributes["data-id"] }
        #expect(groups == ["note", "label"])
        #expect(xml.elements.filter { $0.attributes["xlink:href"] == "#outline-0" }.count == 2)
        #expect(!xml.elements.contains { $0.attributes["xlink:href"] == "#outline-1" } && !xml.elements.contains { $0.attributes["id"] == "outline-1" })
    }

    @Test("The SVG draws the stroke colour and width times the scale, no outline at width 0, and the opacity on every part")
    func svgStyle() throws {
        var styled = note("", style: ShapeStyle(stroke: 0x1971C2, strokeWidth: 4, opacity: 0.5))
        styled.scale = 2
        styled.hatch = .hatch
        var bare = note("", at: Point(x: 500, y: 300), style: ShapeStyle(strokeWidth: 0))
        bare.id = "bare"
        let xml = ParsedXML(SVGRenderer.render(CanvasPicture(looked([styled, bare]))))
        #expect(xml.error == nil)
        let uses = xml.elements.filter { $0.attributes["xlink:href"] == "#outline-0" && $0.attributes["stroke"] != nil }
        let stroke = try #require(uses.first)
        #expect(stroke.attributes["stroke"] == "#1971c2" && stroke.attributes["stroke-width"] == "8" && stroke.attributes["stroke-opacity"] == "0.5")
        let fill = try #require(xml.elements.first { $0.attributes["xlink:href"] == "#outline-0" && $0.attributes["fill-rule"] == "evenodd" })
        #expect(fill.attributes["fill-opacity"] == "0.5")
        #expect(xml.elements.first { $0.attributes["clip-path"] != nil }?.attributes["stroke-opacity"] == "0.18")
        #expect(!xml.elements.contains { $0.attributes["xlink:href"] == "#outline-1" && $0.attributes["stroke"] != nil })
        // A note's corners are rounded: its outline has more than four points.
        let d = try #require(xml.elements.first { $0.attributes["id"] == "outline-1" }?.attributes["d"])
        #expect(d.filter { $0 == "L" }.count > 4)
    }

    @Test("The PNG paints a note's text in its ink inside the note, and the same canvas gives the same bytes")
    func pngText() throws {
        let plain = try #require(DecodedPNG(try PNGRenderer.render(CanvasPicture(looked([note("")])))))
        let bytes = try PNGRenderer.render(CanvasPicture(looked([note("WWWW MMMM\nWWWW MMMM")])))
        #expect(try PNGRenderer.render(CanvasPicture(looked([note("WWWW MMMM\nWWWW MMMM")]))) == bytes)
        let written = try #require(DecodedPNG(bytes))
        func dark(_ png: DecodedPNG) -> Int {
            var n = 0
            for y in 110..<290 { for x in 110..<290 where png.pixel(x, y).r < 100 && png.pixel(x, y).g < 100 { n += 1 } }
            return n
        }
        #expect(dark(plain) == 0)
        #expect(dark(written) > 200, "ink pixels: \(dark(written))")
        // Text in a stroke colour is painted in it.
        let red = try #require(DecodedPNG(try PNGRenderer.render(CanvasPicture(looked([note("WWWW MMMM", style: ShapeStyle(stroke: 0xE03131, fontSize: 40))])))))
        var reddish = 0
        for y in 150..<250 { for x in 110..<290 { let p = red.pixel(x, y); if p.r > 180 && p.g < 120 && p.b < 120 { reddish += 1 } } }
        #expect(reddish > 100, "red pixels: \(reddish)")
    }

    @Test("The PNG leaves a text shape's fill and outline out, and fades a shape by its opacity")
    func pngStyle() throws {
        let clear = Shape(id: "t", kind: .text, center: Point(x: 200, y: 200), size: Size(width: 240, height: 60),
                          fill: HSBColor(rgb: 0x000000, alpha: 1), z: 0)
        let png = try #require(DecodedPNG(try PNGRenderer.render(CanvasPicture(looked([clear])))))
        #expect(png.pixel(200, 200) == (255, 255, 255, 255))
        let faded = Shape(id: "f", kind: .roundedRect, center: Point(x: 200, y: 200), size: Size(width: 100, height: 100),
                          fill: HSBColor(rgb: 0x000000, alpha: 1), z: 0, style: ShapeStyle(opacity: 0.5))
        let half = try #require(DecodedPNG(try PNGRenderer.render(CanvasPicture(looked([faded])))))
        let p = half.pixel(200, 200)
        #expect((120...135).contains(p.r) && p.r == p.g && p.g == p.b, "\(p)")
    }
}

private func connector(_ kind: ShapeKind, from a: Point, to b: Point, style: ShapeStyle = ShapeStyle(strokeWidth: 3)) -> Shape {
    Shape(id: kind.name, kind: kind, center: .zero, size: Size(width: 0, height: Shape.connectorThickness),
          fill: HSBColor(h: 0, s: 0, b: 0, a: 0), z: 1, style: style).spanning(from: a, to: b)
}

@Suite("Export of connectors (1.7, P28)")
struct ConnectorRenderTests {
    @Test("The SVG draws a connector as a line from end to end in its stroke, an arrow with a three-point head at its to end, and no fill or outline")
    func svg() throws {
        let shapes = [connector(.arrow, from: Point(x: 100, y: 100), to: Point(x: 500, y: 100), style: ShapeStyle(stroke: 0x1971C2, strokeWidth: 3)),
                      connector(.line, from: Point(x: 100, y: 300), to: Point(x: 100, y: 500))]
        let xml = ParsedXML(SVGRenderer.render(CanvasPicture(looked(shapes))))
        #expect(xml.error == nil)
        let lines = xml.elements.filter { $0.attributes["class"] == "connector" }
        #expect(lines.map { $0.attributes["d"] } == ["M100 100L500 100", "M100 300L100 500"])
        #expect(lines[0].attributes["stroke"] == "#1971c2" && lines[0].attributes["stroke-width"] == "3")
        let heads = xml.elements.filter { $0.attributes["class"] == "arrowhead" }
        #expect(heads.count == 1 && heads[0].attributes["d"] == "M500 100L488 106L488 94Z")
        #expect(!xml.elements.contains { $0.attributes["fill-rule"] == "evenodd" })
    }

    @Test("A connector's label is level whatever the line's direction, centred on its middle, over a white backdrop, and not wrapped")
    func label() throws {
        var arrow = connector(.arrow, from: Point(x: 100, y: 100), to: Point(x: 400, y: 400))
        arrow.text = "a long label that would wrap in a frame"
        let xml = ParsedXML(SVGRenderer.render(CanvasPicture(looked([arrow]))))
        #expect(xml.error == nil)
        let text = try #require(xml.elements.first { $0.name == "text" })
        #expect(text.attributes["transform"] == "matrix(1 0 0 1 250 250)" && text.attributes["text-anchor"] == "middle")
        #expect(xml.elements.filter { $0.name == "tspan" }.count == 1)
        let backdrop = try #require(xml.elements.first { $0.attributes["class"] == "label-backdrop" })
        #expect(backdrop.attributes["fill"] == "#ffffff" && backdrop.attributes["transform"] == "matrix(1 0 0 1 250 250)")
    }

    @Test("The PNG strokes the line and fills the arrowhead")
    func png() throws {
        let arrow = connector(.arrow, from: Point(x: 100, y: 100), to: Point(x: 500, y: 100), style: ShapeStyle(stroke: 0x000000, strokeWidth: 4))
        let png = try #require(DecodedPNG(try PNGRenderer.render(CanvasPicture(looked([arrow])))))
        for x in stride(from: 110, through: 480, by: 37) { #expect(png.pixel(x, 100).r < 60, "line at \(x): \(png.pixel(x, 100))") }
        // The head is 16 units long and as wide at its base (x 484): 5 units off the line 2 units past the base
        // is inside it, while 5 units off the line elsewhere is white.
        #expect(png.pixel(486, 105).r < 60 && png.pixel(300, 105).r > 200)
    }
}

private extension String {
    var trimmingTrailingZeros: String {
        guard contains(".") else { return self }
        var s = self
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}
