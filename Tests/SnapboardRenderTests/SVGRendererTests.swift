import Foundation
import SnapboardCore
import SnapboardRender
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// What an XML parser makes of a document: whether it is well-formed, and its elements with their attributes and text.
final class ParsedXML: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    var text: [String: String] = [:]
    private var open: [String] = []
    var error: String?

    init(_ document: String) {
        super.init()
        let parser = XMLParser(data: Data(document.utf8))
        parser.delegate = self
        if !parser.parse() { error = parser.parserError.map { "\($0)" } ?? "not well-formed" }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        elements.append((name, attributes))
        open.append(name)
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { open.removeLast() }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let name = open.last { text[name, default: ""] += string }
    }
}

@Suite("SVG export")
struct SVGRendererTests {
    @Test("Every kind of shape becomes a filled, outlined path from its contours, bottom to top, and the document is well-formed")
    func everyKindIsAPath() throws {
        let snapshot = RenderFixtures.everyKind()
        let svg = SVGRenderer.render(CanvasPicture(snapshot))
        let xml = ParsedXML(svg)
        #expect(xml.error == nil, "\(xml.error ?? "")")
        #expect(!svg.contains("\\n") && svg.split(separator: "\n").count > snapshot.shapes.count * 4)
        #expect(xml.elements.first?.name == "svg" && xml.elements.first?.attributes["viewBox"] == "0 0 1024 768")
        let groups = xml.elements.filter { $0.attributes["class"] == "shape" }.map { $0.attributes["data-id"] ?? "" }
        #expect(groups == ShapeKind.names.filter { $0 != "text" && $0 != "note" })
        let fills = xml.elements.filter { $0.attributes["fill-rule"] == "evenodd" }
        #expect(fills.count == snapshot.shapes.count)
        for (index, (shape, path)) in zip(snapshot.shapes, fills).enumerated() {
            // The outline is written once and used for the fill, the hatch's clip and the stroke.
            #expect(path.attributes["xlink:href"] == "#outline-\(index)")
            #expect(xml.elements.filter { $0.attributes["xlink:href"] == "#outline-\(index)" }.count == (shape.hatch == .none ? 2 : 3))
            let d = try #require(xml.elements.first { $0.name == "path" && $0.attributes["id"] == "outline-\(index)" }?.attributes["d"])
            // One closed subpath per contour (a fractal has one per circle).
            #expect(d.filter { $0 == "M" }.count == shape.contours.count && d.filter { $0 == "Z" }.count == shape.contours.count, "\(shape.id)")
            let rgb = String(shape.fill.rgb, radix: 16)
            #expect(path.attributes["fill"] == "#" + String(repeating: "0", count: 6 - rgb.count) + rgb, "\(shape.id)")
        }
        // Hatched shapes get lines clipped to their outline; the others none.
        let hatched = snapshot.shapes.filter { $0.hatch != .none }.count
        #expect(xml.elements.filter { $0.name == "clipPath" }.count == hatched)
        #expect(xml.elements.filter { $0.attributes["clip-path"] != nil }.count == hatched)
        #expect(xml.elements.contains { $0.attributes["class"] == "grid" })
    }

    @Test("A hostile canvas id and shape id come back from the parser exactly as given: markup characters are escaped", arguments: [
        #"<script>alert("x")</script>"#, #"a&b'c"d<e>f"#, "]]><!--", "tab\tnew\u{1}line", "&amp;",
    ])
    func hostileTextIsEscaped(_ text: String) throws {
        var snapshot = RenderFixtures.everyKind(id: text)
        snapshot.shapes[0].id = text
        let svg = SVGRenderer.render(CanvasPicture(snapshot))
        let xml = ParsedXML(svg)
        #expect(xml.error == nil, "\(xml.error ?? "") in \(svg.prefix(400))")
        // A control character XML cannot carry is replaced; everything else survives the round trip.
        let expected = text.replacingOccurrences(of: "\u{1}", with: "\u{FFFD}")
        #expect(xml.text["title"] == "Snapboard canvas " + expected)
        #expect(xml.elements.first { $0.attributes["class"] == "shape" }?.attributes["data-id"] == expected.replacingOccurrences(of: "\t", with: " "))
        #expect(!svg.contains("<script") && !svg.contains("a&b"))
    }

    @Test("The escaper turns each of <&\"'> into its entity")
    func escaper() {
        #expect(SVGRenderer.escape(#"<&"'>"#) == "&lt;&amp;&quot;&apos;&gt;")
        #expect(SVGRenderer.escape("plain-id_1") == "plain-id_1")
    }

    @Test("The same canvas gives the same bytes; a layout canvas shows its cells instead of the grid; grid: false leaves both out")
    func deterministicAndGrids() throws {
        let snapshot = RenderFixtures.everyKind()
        #expect(SVGRenderer.render(CanvasPicture(snapshot)) == SVGRenderer.render(CanvasPicture(snapshot)))
        var layout = snapshot
        layout.config.layout = .flexible(rows: 2, columns: 3)
        let cells = ParsedXML(SVGRenderer.render(CanvasPicture(layout))).elements.filter { $0.name == "rect" }
        #expect(cells.count == 1 + 6)
        let bare = ParsedXML(SVGRenderer.render(CanvasPicture(snapshot, grid: false)))
        #expect(!bare.elements.contains { $0.attributes["class"] == "grid" } && bare.elements.filter { $0.name == "rect" }.count == 1)
    }

    @Test("A dense grid on a big canvas is thinned to at most 128 dots per axis")
    func denseGridIsThinned() {
        var snapshot = RenderFixtures.everyKind()
        (snapshot.config.width, snapshot.config.height) = (100_000, 100_000)
        (snapshot.config.gridX, snapshot.config.gridY) = (.pitch(10), .pitch(10))
        let picture = CanvasPicture(snapshot)
        #expect(!picture.dots.isEmpty && picture.dots.count <= 128 * 128)
    }
}
