/// How a shape is stroked and lettered (1.7, P26), beside its `fill` and `hatch`. Every field has a default,
/// and a shape at the defaults carries none of them on the wire.
public struct ShapeStyle: Hashable, Sendable {
    /// The outline and text colour as 0xRRGGBB; nil draws the default outline (`#141823` at 70 %) and text
    /// in `#1e1e1e`.
    public var stroke: UInt32?
    /// The outline's width in canvas units before the shape's scale; 0 draws no outline.
    public var strokeWidth: Double
    /// The whole shape's opacity: fill, outline and text.
    public var opacity: Double
    /// The text's size in canvas units before the shape's scale.
    public var fontSize: Double

    public init(stroke: UInt32? = nil, strokeWidth: Double = 1.25, opacity: Double = 1, fontSize: Double = 20) {
        self.stroke = stroke
        self.strokeWidth = strokeWidth
        self.opacity = opacity
        self.fontSize = fontSize
    }

    public static let standard = ShapeStyle()
    public static let strokeWidthRange = 0.0...32
    public static let opacityRange = 0.1...1
    public static let fontSizeRange = 8.0...160

    public var isStandard: Bool { self == .standard }

    /// Why this style cannot be stored (a number out of its range, a colour beyond 24 bits), or nil.
    public var problem: String? {
        if let stroke, stroke > 0xFF_FFFF { return "stroke colour beyond #ffffff" }
        if !(strokeWidth.isFinite && ShapeStyle.strokeWidthRange.contains(strokeWidth)) { return "strokeWidth must be 0–32" }
        if !(opacity.isFinite && ShapeStyle.opacityRange.contains(opacity)) { return "opacity must be 0.1–1" }
        if !(fontSize.isFinite && ShapeStyle.fontSizeRange.contains(fontSize)) { return "fontSize must be 8–160" }
        return nil
    }
}

/// What a `style` op or a snap's spec sets (1.7): each field left nil keeps what the shape has.
public struct StylePatch: Hashable, Sendable {
    /// A fill colour as 0xRRGGBB: sets the fill's hue, saturation and brightness, keeping its alpha.
    public var fill: UInt32?
    public var stroke: UInt32?
    public var strokeWidth: Double?
    public var opacity: Double?
    public var fontSize: Double?

    public init(fill: UInt32? = nil, stroke: UInt32? = nil, strokeWidth: Double? = nil, opacity: Double? = nil, fontSize: Double? = nil) {
        self.fill = fill
        self.stroke = stroke
        self.strokeWidth = strokeWidth
        self.opacity = opacity
        self.fontSize = fontSize
    }

    public var isEmpty: Bool { self == StylePatch() }

    /// `self` with the fields it leaves out taken from `fallback`: a snap's spec over the author's last style.
    public func over(_ fallback: StylePatch) -> StylePatch {
        StylePatch(fill: fill ?? fallback.fill, stroke: stroke ?? fallback.stroke,
                   strokeWidth: strokeWidth ?? fallback.strokeWidth, opacity: opacity ?? fallback.opacity,
                   fontSize: fontSize ?? fallback.fontSize)
    }

    /// Refuses numbers outside their ranges (`out_of_range`) and NaN or infinities (`not_finite`).
    public func validate() throws(Rejection) {
        for value in [strokeWidth, opacity, fontSize].compactMap({ $0 }) where !value.isFinite {
            throw Rejection(.notFinite, "numbers must be finite")
        }
        if let v = strokeWidth, !ShapeStyle.strokeWidthRange.contains(v) { throw Rejection(.outOfRange, "strokeWidth must be 0–32") }
        if let v = opacity, !ShapeStyle.opacityRange.contains(v) { throw Rejection(.outOfRange, "opacity must be 0.1–1") }
        if let v = fontSize, !ShapeStyle.fontSizeRange.contains(v) { throw Rejection(.outOfRange, "fontSize must be 8–160") }
        for colour in [fill, stroke].compactMap({ $0 }) where colour > 0xFF_FFFF {
            throw Rejection(.badStyle, "a colour is #rrggbb")
        }
    }

    /// `shape`'s fill and style with this patch applied.
    func applied(to shape: Shape) -> (HSBColor, ShapeStyle) {
        var fill = shape.fill, style = shape.style
        if let rgb = self.fill { fill = HSBColor(rgb: rgb, alpha: fill.a) }
        if let stroke { style.stroke = stroke }
        if let strokeWidth { style.strokeWidth = strokeWidth }
        if let opacity { style.opacity = opacity }
        if let fontSize { style.fontSize = fontSize }
        return (fill, style)
    }
}

/// The 12 named colours an op may give instead of `#rrggbb` (1.7, P26).
public enum Palette {
    public static let colours: [(name: String, rgb: UInt32)] = [
        ("black", 0x1E1E1E), ("grey", 0x868E96), ("white", 0xFFFFFF), ("red", 0xE03131),
        ("orange", 0xF08C00), ("yellow", 0xFFEC99), ("green", 0x2F9E44), ("teal", 0x0C8599),
        ("blue", 0x1971C2), ("violet", 0x6741D9), ("pink", 0xC2255C), ("brown", 0x8D5524),
    ]

    /// A note's fill before anyone styles it: the palette's yellow.
    public static let noteFill: UInt32 = 0xFFEC99

    /// `#rrggbb` (either case) or a palette name as 0xRRGGBB; nil for anything else.
    public static func colour(_ text: String) -> UInt32? {
        if let named = colours.first(where: { $0.name == text }) { return named.rgb }
        let bytes = Array(text.utf8)
        guard bytes.count == 7, bytes[0] == UInt8(ascii: "#") else { return nil }
        var value: UInt32 = 0
        for b in bytes[1...] {
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// 0xRRGGBB as `#rrggbb`, lowercase.
    public static func hex(_ rgb: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return "#" + String((0..<6).map { digits[Int(rgb >> UInt32(20 - 4 * $0) & 0xF)] })
    }
}
