/// Numbers: a double in its shortest form that reads back the same, integers as plain digits, each
/// written straight into the buffer, alone or after its key.
extension JSONWriter {
    /// A number in the shortest form that reads back to the same double; integers print without a fraction.
    /// Non-finite values, which JSON cannot carry, print as null.
    public mutating func number(_ v: Double) {
        guard v.isFinite else { return value(literal: "null") }
        let c = beginValue()
        if let whole = Self.whole(v) {
            appendDigits(whole, comma: c)
        } else if !appendShortDecimal(v, comma: c) {
            let text = Array(v.description.utf8)
            put(c + text.count) { p in
                p[0] = UInt8(ascii: ",")
                text.withUnsafeBufferPointer { (p + c).update(from: $0.baseAddress!, count: text.count) }
            }
        }
    }

    /// `v` as an integer when it is one that `number(_:)` writes as plain digits.
    @inline(__always)
    private static func whole(_ v: Double) -> Int64? {
        abs(v) < 1e15 ? Int64(exactly: v) : nil
    }

    /// Powers of ten for `appendShortDecimal`.
    private static let scales: [Double] = [10, 100, 1_000, 10_000, 100_000, 1_000_000]

    /// Writes `v` with the fewest fraction digits (1 to 6) that read back to exactly `v`, as plain digits;
    /// false, writing nothing, when `v` needs more or is too large for them. The nearest integer to `v × 10ᵏ`,
    /// divided by `10ᵏ`, is `v` again exactly when some decimal of k fraction digits reads back to `v`, and
    /// it is the closest such decimal: the same digits the shortest round trip gives, without the text
    /// formatting and allocation of `description` (placements are mostly halves and short fractions).
    private mutating func appendShortDecimal(_ v: Double, comma c: Int) -> Bool {
        for (k, scale) in Self.scales.enumerated() {
            let scaled = (v * scale).rounded()
            guard abs(scaled) < 1e15 else { return false }
            guard scaled / scale == v else { continue }
            let q = Int64(scaled)
            let unit = UInt64(scale)
            let sign = q < 0 ? 1 : 0
            let whole = q.magnitude / unit
            var fraction = q.magnitude % unit
            let wholeDigits = Self.digitCount(whole), fractionDigits = k + 1
            put(c + sign + wholeDigits + 1 + fractionDigits) { p in
                p[0] = UInt8(ascii: ",")
                p[c] = UInt8(ascii: "-")
                var i = c + sign + wholeDigits + fractionDigits
                for _ in 0..<fractionDigits {
                    p[i] = UInt8(ascii: "0") + UInt8(fraction % 10)
                    fraction /= 10
                    i -= 1
                }
                p[i] = UInt8(ascii: ".")
                Self.writeDigits(whole, endingAt: i - 1, p)
            }
            return true
        }
        return false
    }

    public mutating func number(_ v: Int) { appendDigits(Int64(v), comma: beginValue()) }

    /// A number as `number(_:)` writes it, as text: for other formats that follow the same rule
    /// (whole numbers without a fraction), such as `/metrics`.
    public static func text(_ v: Double) -> String {
        var w = JSONWriter(reserving: 24)
        w.number(v)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// The decimal digits of `v`.
    private static func digitCount(_ v: UInt64) -> Int {
        if v < 10 { return 1 }
        if v < 100 { return 2 }
        if v < 1_000 { return 3 }
        if v < 10_000 { return 4 }
        var n = 5, v = v / 10_000
        while v >= 10 {
            v /= 10
            n += 1
        }
        return n
    }

    /// "00" to "99", two bytes each: digits are written two at a time.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// `v`'s digits (`digitCount(v)` of them), the last at `p[last]`.
    private static func writeDigits(_ v: UInt64, endingAt last: Int, _ p: UnsafeMutablePointer<UInt8>) {
        let pairs = digitPairs.utf8Start
        var v = v, i = last
        while v >= 100 {
            let r = Int(v % 100)
            v /= 100
            p[i] = pairs[2 * r + 1]
            p[i - 1] = pairs[2 * r]
            i -= 2
        }
        if v >= 10 {
            p[i] = pairs[2 * Int(v) + 1]
            p[i - 1] = pairs[2 * Int(v)]
        } else {
            p[i] = UInt8(ascii: "0") + UInt8(v)
        }
    }

    /// An integer's decimal digits, after a comma when `c` is 1, written straight into the buffer (no
    /// String on the way), from the last digit back.
    private mutating func appendDigits(_ v: Int64, comma c: Int) {
        let sign = v < 0 ? 1 : 0
        let magnitude = v.magnitude
        let n = c + sign + Self.digitCount(magnitude)
        put(n) { p in
            p[0] = UInt8(ascii: ",")
            p[c] = UInt8(ascii: "-")
            Self.writeDigits(magnitude, endingAt: n - 1, p)
        }
    }

    public mutating func number(key k: String, _ v: Int) { key(k); number(v) }

    /// A key and a whole number in one write; any other number after its key, as `number(_:)` writes it.
    public mutating func number(_ k: StaticString, _ v: Double) {
        if let whole = Self.whole(v) {
            keyed(k, whole)
        } else {
            key(k)
            number(v)
        }
    }

    public mutating func number(_ k: StaticString, _ v: Int) { keyed(k, Int64(v)) }

    /// `"k":` and `v`'s digits, after a comma if one is needed.
    private mutating func keyed(_ k: StaticString, _ v: Int64) {
        let c = comma()
        let magnitude = v.magnitude
        let total = c + k.utf8CodeUnitCount + 3 + (v < 0 ? 1 : 0) + Self.digitCount(magnitude)
        put(total) { p in
            p[Self.write(k, comma: c, p)] = UInt8(ascii: "-")
            Self.writeDigits(magnitude, endingAt: total - 1, p)
        }
    }
}
