import CLibCairo
import SnapboardCore

/// A shape's text as an export draws it (1.7, P26), laid out once for both renderers as the web page lays
/// it out (Sources/SnapboardWeb/page/text-layout.js): broken at line feeds and wrapped between words at the
/// frame's width less twice the kind's padding (inside a word only when it is wider than a line), lines
/// `fontSize × 1.25` apart, in the shape's own frame so that it scales and turns with the shape. A
/// connector's label (P28) is level instead, centred on its middle, scaled with it, broken only at line
/// feeds, over a white backdrop.
public struct TextArt: Sendable {
    /// The lines, in drawing order.
    public var lines: [String]
    /// The middle of each line (the SVG's `central` baseline) in the shape's own frame: x is the line's
    /// left end, or its centre when `centred`.
    public var middles: [Point]
    public var centred: Bool
    /// Canvas units before the shape's scale.
    public var fontSize: Double
    public var colour: CanvasPicture.Colour
    /// From the shape's own frame to the canvas.
    public var transform: AffineTransform
    /// The font family both renderers ask for.
    public static let family = "sans-serif"
    /// Where a line's baseline lies below its middle, in ems of the font cairo finds for `family`.
    public var baselineDrop: Double
    /// Behind a connector's label (1.7, P28), in the same frame: one rectangle a line, the line's advance
    /// and 4 units each side wide, a line high, so that the connector does not cross the words. Empty for
    /// other kinds.
    public var backdrops: [Rect] = []
    /// The backdrops' colour: the canvas's white at 90 %, times the shape's opacity.
    public var backdropColour = CanvasPicture.Colour(rgb: 0xFFFFFF, alpha: 0.9)

    /// Padding on each side of the frame, and whether the text is centred both ways or starts at the top
    /// left: 8 and top left for a `text`, 12 and centred for a `note`, 8 and centred for any other kind.
    static func box(_ kind: ShapeKind) -> (padding: Double, centred: Bool) {
        switch kind {
        case .text: (8, false)
        case .note: (12, true)
        case .line, .arrow: (0, true)
        default: (8, true)
        }
    }

    /// The art of `shape`'s text in `colour`, or nil when it has none.
    init?(_ shape: Shape, colour: CanvasPicture.Colour, metrics: TextMetrics) {
        guard !shape.text.isEmpty else { return nil }
        let (padding, centred) = Self.box(shape.kind)
        let size = shape.style.fontSize
        // A connector's label is level, centred on its middle, scaled with it, broken only at line feeds.
        let connector = shape.kind.isConnector
        let width = connector ? Double.infinity : max(shape.size.width - 2 * padding, 1)
        lines = Self.wrap(shape.text, width: width / size) { metrics.advance(of: $0) }
        let step = size * 1.25
        let x = centred ? 0 : -shape.size.width / 2 + padding
        let top = centred ? -Double(lines.count) * step / 2 : -shape.size.height / 2 + padding
        middles = lines.indices.map { Point(x: x, y: top + (Double($0) + 0.5) * step) }
        self.centred = centred
        fontSize = size
        self.colour = colour
        transform = connector ? AffineTransform.translation(shape.center).after(.scale(shape.scale)) : shape.transform
        baselineDrop = metrics.baselineDrop
        if connector {
            backdrops = zip(lines, middles).map { line, middle in
                let advance = line.reduce(0) { $0 + metrics.advance(of: $1) } * size + 8
                return Rect(x: middle.x - advance / 2, y: middle.y - step / 2, width: advance, height: step)
            }
            backdropColour.alpha *= shape.style.opacity
        }
    }

    /// `text` broken into lines no wider than `width` ems, where `advance` gives a character's width in
    /// ems. The rule of the page's `wrapText`, on summed advances: each measure is linear in what it adds.
    static func wrap(_ text: String, width: Double, advance: (Character) -> Double) -> [String] {
        func measure(_ s: Substring) -> Double { s.reduce(0) { $0 + advance($1) } }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            // Words keep the space that follows them, as the page's split(/(?<= )/) does.
            var words: [Substring] = []
            var start = paragraph.startIndex
            for i in paragraph.indices where paragraph[i] == " " {
                let next = paragraph.index(after: i)
                words.append(paragraph[start..<next])
                start = next
            }
            if start < paragraph.endIndex || words.isEmpty { words.append(paragraph[start...]) }
            var line = "", lineWidth = 0.0
            for word in words {
                let trimmed = word.trimmingTrailingSpaces
                if line.isEmpty || lineWidth + measure(trimmed) <= width {
                    line += word
                    lineWidth += measure(word)
                    continue
                }
                lines.append(String(line.trimmingTrailingSpaces))
                line = String(word)
                lineWidth = measure(word)
            }
            // What is still too wide is a single word: it is broken where it has to be.
            var piece = "", pieceWidth = 0.0
            for ch in line.trimmingTrailingSpaces {
                let w = advance(ch)
                if !piece.isEmpty, pieceWidth + w > width {
                    lines.append(piece)
                    (piece, pieceWidth) = ("", 0)
                }
                piece.append(ch)
                pieceWidth += w
            }
            lines.append(piece)
        }
        return lines
    }
}

private extension StringProtocol {
    var trimmingTrailingSpaces: SubSequence {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " { end = index(before: end) }
        return self[startIndex..<end]
    }
}

/// Character advances of the font cairo finds for `TextArt.family`, in ems, unhinted so that they scale
/// linearly with the size, each measured once. One is made for each picture and used on one thread.
/// Without a font (cairo could not make a surface) every character is half an em.
final class TextMetrics {
    private var advances: [Character: Double] = [:]
    private let surface: OpaquePointer?
    private let cr: OpaquePointer?
    /// Where the baseline lies below the middle of a line, in ems.
    private(set) var baselineDrop = 0.35

    static let unit = 100.0

    init() {
        surface = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1)
        cr = surface.flatMap { cairo_create($0) }
        guard let cr else { return }
        TextMetrics.select(cr, size: TextMetrics.unit)
        var font = cairo_font_extents_t()
        cairo_font_extents(cr, &font)
        baselineDrop = (font.ascent - font.descent) / 2 / TextMetrics.unit
    }

    /// Sets `cr`'s font: `TextArt.family` at `size`, with metrics unhinted.
    static func select(_ cr: OpaquePointer, size: Double) {
        cairo_select_font_face(cr, TextArt.family, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
        if let options = cairo_font_options_create() {
            cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
            cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
            cairo_set_font_options(cr, options)
            cairo_font_options_destroy(options)
        }
    }

    func advance(of ch: Character) -> Double {
        if let known = advances[ch] { return known }
        var width = 0.5
        if let cr {
            var extents = cairo_text_extents_t()
            String(ch).withCString { cairo_text_extents(cr, $0, &extents) }
            if extents.x_advance.isFinite, extents.x_advance >= 0 { width = extents.x_advance / TextMetrics.unit }
        }
        advances[ch] = width
        return width
    }

    deinit {
        if let cr { cairo_destroy(cr) }
        if let surface { cairo_surface_destroy(surface) }
    }
}
