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

extension HSBColor {
    /// The colour whose `rgb` is exactly `rgb` (0xRRGGBB), with alpha `alpha`: a colour a client picks by
    /// hex or palette name (1.7). Each channel is aimed at the middle of its 1/255 step, so the truncation in
    /// `rgb` lands on it whatever the rounding of the arithmetic.
    public init(rgb: UInt32, alpha: Double) {
        let r = Int(rgb >> 16 & 0xFF), g = Int(rgb >> 8 & 0xFF), b = Int(rgb & 0xFF)
        let hi = max(r, g, b), lo = min(r, g, b)
        func level(_ c: Int) -> Double { c == 255 ? 1 : (Double(c) + 0.5) / 255 }
        let v = level(hi)
        guard hi != lo else {
            self.init(h: 0, s: 0, b: v, a: alpha)
            return
        }
        let s = 1 - level(lo) / v
        // The sector and the channel that moves within it, rising (t) or falling (q), as `rgb` lays them out.
        let (sector, mid, rising): (Int, Int, Bool) =
            if r == hi && b == lo { (0, g, true) } else if g == hi && b == lo { (1, r, false) }
            else if g == hi && r == lo { (2, b, true) } else if b == hi && r == lo { (3, g, false) }
            else if b == hi && g == lo { (4, r, true) } else { (5, b, false) }
        let k = mid == hi ? 0 : (1 - level(mid) / v) / s
        var f = rising ? 1 - k : k
        var i = sector
        if f >= 1 { i = (i + 1) % 6; f = 0 }
        self.init(h: (Double(i) + max(0, f)) / 6, s: s, b: v, a: alpha)
    }
}
