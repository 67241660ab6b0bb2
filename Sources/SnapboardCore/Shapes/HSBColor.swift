/// A colour as hue, saturation, brightness and alpha, each in 0...1, as `UIColor(hue:saturation:brightness:alpha:)` takes it.
public struct HSBColor: Hashable, Sendable, Codable {
    public var h: Double
    public var s: Double
    public var b: Double
    public var a: Double

    public init(h: Double, s: Double, b: Double, a: Double) {
        (self.h, self.s, self.b, self.a) = (h, s, b, a)
    }

    /// The default fill of seed 004: the given hue, saturation 0.8, brightness 1.0 and alpha 0.8.
    public static func seedDefault(hue: Double) -> HSBColor {
        HSBColor(h: hue, s: 0.8, b: 1.0, a: 0.8)
    }

    /// The colour as 0xRRGGBB (alpha left out), by the usual HSV-to-RGB sectors.
    public var rgb: UInt32 {
        let hue = h * 6, v = b
        let i = Int(hue) % 6, f = hue - Double(Int(hue))
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        let (r, g, b): (Double, Double, Double) = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]
        return UInt32(r * 255) << 16 | UInt32(g * 255) << 8 | UInt32(b * 255)
    }

    /// True when every component is finite and within 0...1.
    public var isValid: Bool {
        [h, s, b, a].allSatisfy { $0.isFinite && (0...1).contains($0) }
    }
}
