import SnapboardCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an export draws, in canvas units, decided once for both renderers: the canvas's frame, its grid
/// dots or layout cells, and every shape bottom to top with its fill, hatch lines, outline and text, in
/// its style (1.7, P26). The SVG
/// writes these; the PNG paints the same through cairo, scaled, so the two pictures agree.
public struct CanvasPicture: Sendable {
    /// An sRGB colour with alpha, each in 0...1.
    public struct Colour: Hashable, Sendable {
        public var red: Double, green: Double, blue: Double, alpha: Double

        public init(rgb: UInt32, alpha: Double = 1) {
            red = Double(rgb >> 16 & 0xFF) / 255
            green = Double(rgb >> 8 & 0xFF) / 255
            blue = Double(rgb & 0xFF) / 255
            self.alpha = alpha
        }

        /// `#rrggbb`, alpha left out.
        public var hex: String {
            let value = Int((red * 255).rounded()) << 16 | Int((green * 255).rounded()) << 8 | Int((blue * 255).rounded())
            let digits = String(value, radix: 16)
            return "#" + String(repeating: "0", count: 6 - digits.count) + digits
        }
    }

    /// One shape as drawn: the outline (even-odd), its fill, the hatch segments clipped to the outline, the
    /// outline stroked, and its text (1.7, P26). Every colour already carries the shape's opacity.
    public struct ShapeArt: Sendable {
        public var id: String
        /// Closed polygons in canvas space, as `Shape.contours` gives them (a note's corners rounded).
        public var contours: [[Point]]
        /// Nil for a `text` shape, which draws no fill, hatch or outline.
        public var fill: Colour?
        /// Hatch lines in canvas space, each to be clipped to `contours`; empty for `Hatch.none`.
        public var hatch: [(Point, Point)]
        public var hatchColour: Colour
        /// The outline's colour, nil when none is drawn (a `text`, or a `strokeWidth` of 0).
        public var outline: Colour?
        /// In canvas units: the style's `strokeWidth` times the shape's scale.
        public var outlineWidth: Double
        public var text: TextArt?
        /// A connector's line and arrowhead (1.7, P28), drawn instead of a fill and outline.
        public var line: LineArt?
    }

    /// A connector as drawn: a stroke from end to end, and for an arrow a filled head whose tip is the `to` end.
    public struct LineArt: Sendable {
        public var from: Point
        public var to: Point
        public var colour: Colour
        /// In canvas units: the style's `strokeWidth` times the shape's scale.
        public var width: Double
        /// The arrowhead's three corners, tip first; empty for a line.
        public var head: [Point]
    }

    /// The look the web page gives a board (Sources/SnapboardWeb/page/render.js), in canvas units.
    public enum Style {
        public static let background = Colour(rgb: 0xFFFFFF)
        public static let border = Colour(rgb: 0xC9CFDB)
        public static let borderWidth = 1.0
        public static let gridDot = Colour(rgb: 0xB4BCCB)
        public static let cellFill = Colour(rgb: 0xE9EEF7)
        public static let cellStroke = Colour(rgb: 0xC3CDE0)
        public static let cellStrokeWidth = 1.0
        public static let outline = Colour(rgb: 0x141823, alpha: 0.7)
        /// Text where a shape has no `stroke` (1.7, P26).
        public static let ink = Colour(rgb: 0x1E1E1E)
        /// A note's corners are rounded by this many canvas units, before its scale (1.7, P26).
        public static let noteCorner = 4.0
        /// Segments of each rounded corner.
        public static let cornerSegments = 6
        /// An arrowhead's length: this many stroke widths, and at least `minArrowHead` canvas units.
        public static let arrowHeadWidths = 4.0
        public static let minArrowHead = 10.0
        public static let hatchLine = Colour(rgb: 0x000000, alpha: 0.35)
        public static let hatchWidth = 1.0
        /// Canvas units between hatch lines, in the shape's own (unscaled) frame.
        public static let hatchSpacing = 8.0
        /// Grid dots at most this many per axis: a dense grid on a big canvas is thinned, not drawn grey.
        public static let maxDotsPerAxis = 128
        /// Grid dots at least this many canvas units apart.
        public static let minDotSpacing = 6.0
        /// Layout cells are drawn only while there are at most this many.
        public static let maxCells = 40_000
    }

    /// The canvas id, written as the SVG's title.
    public var id: String
    public var width: Double
    public var height: Double
    /// Grid dot centres (already thinned), and their radius.
    public var dots: [Point]
    public var dotRadius: Double
    /// Layout cells, drawn instead of the grid on a layout canvas.
    public var cells: [Rect]
    /// Every shape, bottom to top.
    public var shapes: [ShapeArt]

    /// The picture of `snapshot`: its shapes in the order given (bottom to top), and with `grid`, the grid's
    /// intersections as dots, or the layout's cells on a layout canvas.
    public init(_ snapshot: CanvasSnapshot, grid: Bool = true) {
        id = snapshot.id
        width = snapshot.config.width
        height = snapshot.config.height
        (dots, dotRadius, cells) = ([], 0, [])
        if grid, let layout = snapshot.config.layoutGrid {
            if layout.rows * layout.columns <= Style.maxCells {
                cells = (0..<layout.rows).flatMap { r in (0..<layout.columns).compactMap { c in layout.cellRect(row: r, column: c) } }
            }
        } else if grid, let intersections = snapshot.config.grid {
            (dots, dotRadius) = Self.dots(intersections)
        }
        let metrics = TextMetrics()
        shapes = snapshot.shapes.map { Self.art($0, metrics: metrics) }
    }

    /// The grid's interior intersections, every k-th line on each axis so that dots stay `minDotSpacing`
    /// apart and at most `maxDotsPerAxis` per axis; the radius as the page draws it at zoom 1.
    static func dots(_ grid: IntersectionGrid) -> ([Point], Double) {
        let lastX = grid.x.lastInteriorIndex, lastY = grid.y.lastInteriorIndex
        guard lastX >= 1, lastY >= 1 else { return ([], 0) }
        let pitch = min(grid.x.position(1) - grid.x.position(0), grid.y.position(1) - grid.y.position(0))
        let every = max(1, Int((Style.minDotSpacing / pitch).rounded(.up)),
                        (lastX + Style.maxDotsPerAxis - 1) / Style.maxDotsPerAxis,
                        (lastY + Style.maxDotsPerAxis - 1) / Style.maxDotsPerAxis)
        let radius = min(2.5, max(1, pitch / 12))
        var points: [Point] = []
        for i in stride(from: 1, through: lastX, by: every) {
            for j in stride(from: 1, through: lastY, by: every) {
                points.append(Point(x: grid.x.position(i), y: grid.y.position(j)))
            }
        }
        return (points, radius)
    }

    /// A shape as drawn, as the page draws it. Hatch lines are laid in the shape's own frame across its whole
    /// diagonal, 45° (and -45° for a cross-hatch), `hatchSpacing` apart, then carried to canvas space by its
    /// transform.
    static func art(_ shape: Shape, metrics: TextMetrics) -> ShapeArt {
        let opacity = shape.style.opacity
        func faded(_ c: Colour) -> Colour { var c = c; c.alpha *= opacity; return c }
        let ink = faded(shape.style.stroke.map { Colour(rgb: $0) } ?? Style.ink)
        let text = TextArt(shape, colour: ink, metrics: metrics)
        let outlineWidth = shape.style.strokeWidth * shape.scale
        var art = ShapeArt(id: shape.id, contours: shape.kind == .note ? roundedFrame(shape) : shape.contours, fill: nil, hatch: [],
                           hatchColour: faded(Style.hatchLine), outline: nil, outlineWidth: outlineWidth, text: text, line: nil)
        guard shape.kind != .text else { return art }
        if shape.kind.isConnector {
            art.line = line(shape, colour: faded(shape.style.stroke.map { Colour(rgb: $0) } ?? Style.outline), width: outlineWidth)
            return art
        }
        art.fill = faded(Colour(rgb: shape.fill.rgb, alpha: shape.fill.a))
        if outlineWidth > 0 { art.outline = faded(shape.style.stroke.map { Colour(rgb: $0) } ?? Style.outline) }
        if shape.hatch != .none {
            let reach = (shape.size.width * shape.size.width + shape.size.height * shape.size.height).squareRoot() / 2
            let angles = shape.hatch == .crossHatch ? [Double.pi / 4, -Double.pi / 4] : [Double.pi / 4]
            let t = shape.transform
            for angle in angles {
                let cs = cos(angle), sn = sin(angle)
                var k = -reach
                while k <= reach {
                    let a = Point(x: k * -sn - reach * cs, y: k * cs - reach * sn)
                    let b = Point(x: k * -sn + reach * cs, y: k * cs + reach * sn)
                    art.hatch.append((t.apply(a), t.apply(b)))
                    k += Style.hatchSpacing
                }
            }
        }
        return art
    }

    /// A connector's line from end to end and, for an arrow, its head: `arrowHeadWidths` stroke widths long
    /// (at least `minArrowHead`), its base as wide as it is long, pointing along the line to the `to` end.
    static func line(_ shape: Shape, colour: Colour, width: Double) -> LineArt {
        let (from, to) = shape.endpoints
        var head: [Point] = []
        let d = to - from, length = (d.x * d.x + d.y * d.y).squareRoot()
        if shape.kind == .arrow {
            let size = max(Style.arrowHeadWidths * width, Style.minArrowHead)
            // Along the frame's direction, so a connector whose ends meet still has a head.
            let unit = length > 0 ? d * (1 / length) : Point(x: cos(shape.rotation), y: sin(shape.rotation))
            let normal = Point(x: -unit.y, y: unit.x)
            let base = to - unit * size
            head = [to, base + normal * (size / 2), base - normal * (size / 2)]
        }
        return LineArt(from: from, to: to, colour: colour, width: width, head: head)
    }

    /// A note's frame with its corners rounded by `noteCorner` (at most half a side), in canvas space.
    static func roundedFrame(_ shape: Shape) -> [[Point]] {
        let w = shape.size.width / 2, h = shape.size.height / 2
        let r = min(Style.noteCorner, w, h)
        let t = shape.transform
        var points: [Point] = []
        // Corners clockwise on the screen from the top right, each an arc about its centre.
        let corners = [(w - r, -h + r, -Double.pi / 2), (w - r, h - r, 0), (-w + r, h - r, Double.pi / 2), (-w + r, -h + r, Double.pi)]
        for (cx, cy, start) in corners {
            for i in 0...Style.cornerSegments {
                let angle = start + Double(i) / Double(Style.cornerSegments) * Double.pi / 2
                points.append(t.apply(Point(x: cx + r * cos(angle), y: cy + r * sin(angle))))
            }
        }
        return [points]
    }
}
