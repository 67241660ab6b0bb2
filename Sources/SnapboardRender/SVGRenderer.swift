import SnapboardCore

/// A canvas as an SVG 1.1 document: the same picture the board draws at zoom 1, in canvas units.
///
/// Pure and deterministic: the same picture gives the same bytes. Every text and attribute value that
/// comes from the canvas (its id, shape ids, texts) is XML-escaped, so a document is well-formed whatever they hold.
public enum SVGRenderer {
    /// The media type of what `render` returns.
    public static let mediaType = "image/svg+xml"

    /// The picture as an SVG document: the canvas's frame, its grid dots or layout cells, and each shape as a
    /// path (even-odd fill, hatch lines clipped to the outline, then the outline) and its text, bottom to top.
    public static func render(_ picture: CanvasPicture) -> String {
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        out += #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" width=""#
        number(picture.width, &out)
        out += #"" height=""#
        number(picture.height, &out)
        out += #"" viewBox="0 0 "#
        number(picture.width, &out)
        out += " "
        number(picture.height, &out)
        out += "\">\n<title>Snapboard canvas " + escape(picture.id) + "</title>\n"
        typealias Style = CanvasPicture.Style
        rect(x: 0, y: 0, width: picture.width, height: picture.height, &out)
        out += #" fill=""# + Style.background.hex + #"" stroke=""# + Style.border.hex + #"" stroke-width=""#
        number(Style.borderWidth, &out)
        out += "\"/>\n"
        if !picture.cells.isEmpty {
            out += #"<g fill=""# + Style.cellFill.hex + #"" stroke=""# + Style.cellStroke.hex + #"" stroke-width=""#
            number(Style.cellStrokeWidth, &out)
            out += "\">\n"
            for cell in picture.cells {
                rect(x: cell.minX, y: cell.minY, width: cell.width, height: cell.height, &out)
                out += "/>\n"
            }
            out += "</g>\n"
        }
        if !picture.dots.isEmpty {
            // One path of two half-circle arcs per dot: far smaller than a <circle> element each.
            let r = picture.dotRadius
            out += #"<path class="grid" fill=""# + Style.gridDot.hex + #"" d=""#
            for dot in picture.dots {
                out += "M"
                number(dot.x - r, &out)
                out += " "
                number(dot.y, &out)
                out += "a"
                number(r, &out)
                out += " "
                number(r, &out)
                out += " 0 1 0 "
                number(2 * r, &out)
                out += " 0a"
                number(r, &out)
                out += " "
                number(r, &out)
                out += " 0 1 0 "
                number(-2 * r, &out)
                out += " 0"
            }
            out += "\"/>\n"
        }
        // Each outline is written once, in <defs>, and used for the fill, the hatch's clip and the stroke:
        // a fractal's outline is hundreds of points.
        for (index, shape) in picture.shapes.enumerated() {
            out += #"<g class="shape" data-id=""# + escape(shape.id) + "\">\n"
            if shape.fill != nil || shape.outline != nil {
                out += #"<defs><path id="outline-\#(index)" d=""# + pathData(shape.contours) + "\"/></defs>\n"
            }
            if let fill = shape.fill {
                out += ##"<use xlink:href="#outline-\##(index)" fill-rule="evenodd" fill=""## + fill.hex + #"" fill-opacity=""#
                number(fill.alpha, &out)
                out += "\"/>\n"
            }
            if !shape.hatch.isEmpty {
                out += ##"<clipPath id="clip-\##(index)"><use xlink:href="#outline-\##(index)" clip-rule="evenodd"/></clipPath>\##n"##
                out += #"<path clip-path="url(#clip-\#(index))" fill="none" stroke=""# + shape.hatchColour.hex + #"" stroke-opacity=""#
                number(shape.hatchColour.alpha, &out)
                out += #"" stroke-width=""#
                number(Style.hatchWidth, &out)
                out += #"" d=""#
                for (a, b) in shape.hatch {
                    out += "M"
                    number(a.x, &out)
                    out += " "
                    number(a.y, &out)
                    out += "L"
                    number(b.x, &out)
                    out += " "
                    number(b.y, &out)
                }
                out += "\"/>\n"
            }
            if let outline = shape.outline {
                out += ##"<use xlink:href="#outline-\##(index)" fill="none" stroke=""## + outline.hex + #"" stroke-opacity=""#
                number(outline.alpha, &out)
                out += #"" stroke-width=""#
                number(shape.outlineWidth, &out)
                out += "\" stroke-linejoin=\"round\"/>\n"
            }
            if let line = shape.line { self.line(line, &out) }
            if let text = shape.text { self.text(text, &out) }
            out += "</g>\n"
        }
        out += "</svg>\n"
        return out
    }

    /// A connector (1.7, P28): its line, round-capped, and an arrow's head as a filled path.
    static func line(_ line: CanvasPicture.LineArt, _ out: inout String) {
        guard line.width > 0 else { return }
        out += #"<path class="connector" fill="none" stroke=""# + line.colour.hex + #"" stroke-opacity=""#
        number(line.colour.alpha, &out)
        out += #"" stroke-width=""#
        number(line.width, &out)
        out += #"" stroke-linecap="round" d="M"#
        number(line.from.x, &out)
        out += " "
        number(line.from.y, &out)
        out += "L"
        number(line.to.x, &out)
        out += " "
        number(line.to.y, &out)
        out += "\"/>\n"
        guard !line.head.isEmpty else { return }
        out += #"<path class="arrowhead" fill=""# + line.colour.hex + #"" fill-opacity=""#
        number(line.colour.alpha, &out)
        out += #"" d=""# + pathData([line.head]) + "\"/>\n"
    }

    /// A shape's text (1.7, P26): one `<text>` in the shape's own frame, a `<tspan>` a line, each centred on
    /// its middle (`central`), every character of it escaped.
    static func text(_ text: TextArt, _ out: inout String) {
        func matrix() {
            let t = text.transform
            out += #"transform="matrix("#
            for (i, v) in [t.a, t.b, t.c, t.d].enumerated() {
                if i > 0 { out += " " }
                number(v, places: 6, &out)
            }
            out += " "
            number(t.tx, &out)
            out += " "
            number(t.ty, &out)
            out += #")""#
        }
        if !text.backdrops.isEmpty {
            out += #"<path class="label-backdrop" "#
            matrix()
            out += #" fill=""# + text.backdropColour.hex + #"" fill-opacity=""#
            number(text.backdropColour.alpha, &out)
            out += #"" d=""# + pathData(text.backdrops.map { [Point(x: $0.minX, y: $0.minY), Point(x: $0.maxX, y: $0.minY), Point(x: $0.maxX, y: $0.maxY), Point(x: $0.minX, y: $0.maxY)] }) + "\"/>\n"
        }
        out += "<text "
        matrix()
        out += #" font-family=""# + TextArt.family + #"" font-size=""#
        number(text.fontSize, &out)
        out += #"" fill=""# + text.colour.hex + #"" fill-opacity=""#
        number(text.colour.alpha, &out)
        out += #"" text-anchor=""# + (text.centred ? "middle" : "start") + #"" dominant-baseline="central" xml:space="preserve">"#
        for (line, middle) in zip(text.lines, text.middles) {
            out += #"<tspan x=""#
            number(middle.x, &out)
            out += #"" y=""#
            number(middle.y, &out)
            out += "\">" + escape(line) + "</tspan>"
        }
        out += "</text>\n"
    }

    /// `text` safe inside XML character data and inside a double- or single-quoted attribute: the five
    /// markup characters become entities, and characters XML 1.0 does not allow (most C0 controls, lone
    /// surrogates cannot occur in a Swift string, U+FFFE, U+FFFF) become U+FFFD.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The contours as SVG path data: each polygon moved to, lined through and closed.
    static func pathData(_ contours: [[Point]]) -> String {
        var d = ""
        for polygon in contours {
            for (i, p) in polygon.enumerated() {
                d += i == 0 ? "M" : "L"
                number(p.x, &d)
                d += " "
                number(p.y, &d)
            }
            d += "Z"
        }
        return d
    }

    /// `<rect x=".." y=".." width=".." height=".."`, left open for more attributes.
    static func rect(x: Double, y: Double, width: Double, height: Double, _ out: inout String) {
        out += #"<rect x=""#
        number(x, &out)
        out += #"" y=""#
        number(y, &out)
        out += #"" width=""#
        number(width, &out)
        out += #"" height=""#
        number(height, &out)
        out += "\""
    }

    /// `value` with at most `places` decimals (two for positions and sizes, six for a transform's rotation and
    /// scale) and no trailing zeros, so the output is compact and the same on every platform (no locale, no
    /// shortest-round-trip formatting). A value that is not finite, or too large to hold, is written as 0.
    static func number(_ value: Double, places: Int = 2, _ out: inout String) {
        // Within these the scaled value fits an Int exactly enough; beyond, nothing a canvas holds.
        guard value.isFinite, abs(value) < (places <= 2 ? 1e15 : 1e9) else { out += "0"; return }
        var unit = 1
        for _ in 0..<places { unit *= 10 }
        let scaled = Int((value * Double(unit)).rounded())
        if scaled < 0 { out += "-" }
        let magnitude = scaled.magnitude
        out += String(magnitude / UInt(unit))
        var fraction = magnitude % UInt(unit), digits = places
        guard fraction != 0 else { return }
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        out += "." + String(repeating: "0", count: digits - text.count) + text
    }
}
