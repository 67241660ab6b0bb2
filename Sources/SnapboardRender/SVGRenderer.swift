import SnapboardCore

/// A canvas as an SVG 1.1 document: the same picture the board draws at zoom 1, in canvas units.
///
/// Pure and deterministic: the same picture gives the same bytes. Every text and attribute value that
/// comes from the canvas (its id, shape ids) is XML-escaped, so a document is well-formed whatever they hold.
public enum SVGRenderer {
    /// The media type of what `render` returns.
    public static let mediaType = "image/svg+xml"

    /// The picture as an SVG document: the canvas's frame, its grid dots or layout cells, and each shape as a
    /// path (even-odd fill, hatch lines clipped to the outline, then the outline), bottom to top.
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
            out += #"<defs><path id="outline-\#(index)" d=""# + pathData(shape.contours) + "\"/></defs>\n"
            out += ##"<use xlink:href="#outline-\##(index)" fill-rule="evenodd" fill=""## + shape.fill.hex + #"" fill-opacity=""#
            number(shape.fill.alpha, &out)
            out += "\"/>\n"
            if !shape.hatch.isEmpty {
                out += ##"<clipPath id="clip-\##(index)"><use xlink:href="#outline-\##(index)" clip-rule="evenodd"/></clipPath>\##n"##
                out += #"<path clip-path="url(#clip-\#(index))" fill="none" stroke=""# + Style.hatchLine.hex + #"" stroke-opacity=""#
                number(Style.hatchLine.alpha, &out)
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
            out += ##"<use xlink:href="#outline-\##(index)" fill="none" stroke=""## + Style.outline.hex + #"" stroke-opacity=""#
            number(Style.outline.alpha, &out)
            out += #"" stroke-width=""#
            number(Style.outlineWidth, &out)
            out += "\" stroke-linejoin=\"round\"/>\n</g>\n"
        }
        out += "</svg>\n"
        return out
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

    /// `value` with at most two decimals and no trailing zeros, so the output is compact and the same on
    /// every platform (no locale, no shortest-round-trip formatting). A non-finite value is written as 0.
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

    static func number(_ value: Double, _ out: inout String) {
        guard value.isFinite, abs(value) < 1e15 else { out += "0"; return }
        let hundredths = Int((value * 100).rounded())
        if hundredths < 0 { out += "-" }
        let magnitude = hundredths.magnitude
        out += String(magnitude / 100)
        let fraction = magnitude % 100
        if fraction != 0 {
            out += "."
            if fraction < 10 { out += "0" + String(fraction) } else { out += String(fraction % 10 == 0 ? fraction / 10 : fraction) }
        }
    }
}
