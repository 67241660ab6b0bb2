import CLibCairo
import SnapboardCore

/// A canvas as a PNG, painted by cairo: the picture `SVGRenderer` writes, at `scale` pixels per canvas unit.
///
/// The size is bounded before any memory is taken (`maxSide`, `maxPixels`), the bytes are written from
/// memory (no temporary file), and the same picture at the same scale gives the same bytes. Each call
/// makes its own cairo surface, so calls may run on several threads at once.
public enum PNGRenderer {
    /// The media type of what `render` returns.
    public static let mediaType = "image/png"
    /// Pixels per canvas unit that may be asked for.
    public static let scaleRange = 0.1...4.0
    /// The widest and tallest a PNG may be, in pixels.
    public static let maxSide = 4096
    /// The most pixels a PNG may have (61 MiB of ARGB32 surface).
    public static let maxPixels = 16_000_000

    /// The PNG's width and height in pixels for `picture` at `scale`: each canvas side times the scale,
    /// rounded up, at least 1. Throws when the scale is out of range or the image would be too large.
    public static func pixelSize(_ picture: CanvasPicture, scale: Double) throws(RenderError) -> (width: Int, height: Int) {
        guard scale.isFinite, scaleRange.contains(scale) else { throw .scaleOutOfRange(scale) }
        let w = max(1, (picture.width * scale).rounded(.up)), h = max(1, (picture.height * scale).rounded(.up))
        guard w <= Double(maxSide), h <= Double(maxSide), w * h <= Double(maxPixels) else {
            // The largest scale, in hundredths, at which both sides and the area fit.
            let bySide = Double(maxSide) / max(picture.width, picture.height)
            let byArea = (Double(maxPixels) / (picture.width * picture.height)).squareRoot()
            let largest = (min(bySide, byArea, scaleRange.upperBound) * 100).rounded(.down) / 100
            throw .tooLarge(width: Int(min(w, 1e9)), height: Int(min(h, 1e9)), largestScale: largest >= scaleRange.lowerBound ? largest : nil)
        }
        return (Int(w), Int(h))
    }

    /// The picture as PNG bytes at `scale` (default 1: one pixel per canvas unit).
    public static func render(_ picture: CanvasPicture, scale: Double = 1) throws(RenderError) -> [UInt8] {
        let surface = try paint(picture, scale: scale)
        defer { cairo_surface_destroy(surface) }
        var bytes: [UInt8] = []
        let status = withUnsafeMutablePointer(to: &bytes) { sink in
            cairo_surface_write_to_png_stream(surface, { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                closure.assumingMemoryBound(to: [UInt8].self).pointee.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, sink)
        }
        guard status == CAIRO_STATUS_SUCCESS else { throw .cairo(String(cString: cairo_status_to_string(status))) }
        return bytes
    }

    /// A new ARGB32 image surface with the picture painted on it; the caller destroys it.
    static func paint(_ picture: CanvasPicture, scale: Double) throws(RenderError) -> OpaquePointer {
        let (width, height) = try pixelSize(picture, scale: scale)
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw .cairo("no surface")
        }
        let created = cairo_surface_status(surface)
        guard created == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw .cairo(String(cString: cairo_status_to_string(created)))
        }
        guard let cr = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            throw .cairo("no context")
        }
        defer { cairo_destroy(cr) }
        draw(picture, scale: scale, on: cr)
        let status = cairo_status(cr)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw .cairo(String(cString: cairo_status_to_string(status)))
        }
        cairo_surface_flush(surface)
        return surface
    }

    private static func draw(_ picture: CanvasPicture, scale: Double, on cr: OpaquePointer) {
        typealias Style = CanvasPicture.Style
        cairo_scale(cr, scale, scale)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_rectangle(cr, 0, 0, picture.width, picture.height)
        fillAndStroke(cr, Style.background, Style.border, width: Style.borderWidth)

        if !picture.cells.isEmpty {
            for cell in picture.cells { cairo_rectangle(cr, cell.minX, cell.minY, cell.width, cell.height) }
            fillAndStroke(cr, Style.cellFill, Style.cellStroke, width: Style.cellStrokeWidth)
        }
        if !picture.dots.isEmpty {
            for dot in picture.dots {
                cairo_new_sub_path(cr)
                cairo_arc(cr, dot.x, dot.y, picture.dotRadius, 0, 2 * Double.pi)
            }
            set(cr, Style.gridDot)
            cairo_fill(cr)
        }

        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
        for shape in picture.shapes {
            if let fill = shape.fill {
                outline(cr, shape.contours)
                set(cr, fill)
                cairo_fill_preserve(cr)
                if !shape.hatch.isEmpty {
                    cairo_save(cr)
                    cairo_clip_preserve(cr)
                    cairo_new_path(cr)
                    for (a, b) in shape.hatch {
                        cairo_move_to(cr, a.x, a.y)
                        cairo_line_to(cr, b.x, b.y)
                    }
                    set(cr, shape.hatchColour)
                    cairo_set_line_width(cr, Style.hatchWidth)
                    cairo_stroke(cr)
                    cairo_restore(cr)
                    outline(cr, shape.contours)
                }
                if let colour = shape.outline {
                    set(cr, colour)
                    cairo_set_line_width(cr, shape.outlineWidth)
                    cairo_stroke(cr)
                }
                cairo_new_path(cr)
            }
            if let line = shape.line, line.width > 0 {
                cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
                cairo_move_to(cr, line.from.x, line.from.y)
                cairo_line_to(cr, line.to.x, line.to.y)
                set(cr, line.colour)
                cairo_set_line_width(cr, line.width)
                cairo_stroke(cr)
                cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT)
                if !line.head.isEmpty {
                    outline(cr, [line.head])
                    cairo_fill(cr)
                }
            }
            if let text = shape.text { draw(text, on: cr) }
        }
    }

    /// A shape's text in its own frame: each line's baseline `baselineDrop` ems below its middle, a centred
    /// line moved left by half its advance.
    private static func draw(_ text: TextArt, on cr: OpaquePointer) {
        cairo_save(cr)
        let t = text.transform
        var matrix = cairo_matrix_t(xx: t.a, yx: t.b, xy: t.c, yy: t.d, x0: t.tx, y0: t.ty)
        cairo_transform(cr, &matrix)
        if !text.backdrops.isEmpty {
            for box in text.backdrops { cairo_rectangle(cr, box.minX, box.minY, box.width, box.height) }
            set(cr, text.backdropColour)
            cairo_fill(cr)
        }
        TextMetrics.select(cr, size: text.fontSize)
        set(cr, text.colour)
        for (line, middle) in zip(text.lines, text.middles) where !line.isEmpty {
            line.withCString { chars in
                var x = middle.x
                if text.centred {
                    var extents = cairo_text_extents_t()
                    cairo_text_extents(cr, chars, &extents)
                    x -= extents.x_advance / 2
                }
                cairo_move_to(cr, x, middle.y + text.baselineDrop * text.fontSize)
                cairo_show_text(cr, chars)
            }
        }
        cairo_restore(cr)
    }

    private static func outline(_ cr: OpaquePointer, _ contours: [[Point]]) {
        cairo_new_path(cr)
        for polygon in contours {
            for (i, p) in polygon.enumerated() {
                if i == 0 { cairo_move_to(cr, p.x, p.y) } else { cairo_line_to(cr, p.x, p.y) }
            }
            cairo_close_path(cr)
        }
    }

    /// Fills the current path in `fill`, then strokes it `width` wide in `stroke`.
    private static func fillAndStroke(_ cr: OpaquePointer, _ fill: CanvasPicture.Colour, _ stroke: CanvasPicture.Colour, width: Double) {
        set(cr, fill)
        cairo_fill_preserve(cr)
        set(cr, stroke)
        cairo_set_line_width(cr, width)
        cairo_stroke(cr)
    }

    private static func set(_ cr: OpaquePointer, _ colour: CanvasPicture.Colour) {
        cairo_set_source_rgba(cr, colour.red, colour.green, colour.blue, colour.alpha)
    }
}
