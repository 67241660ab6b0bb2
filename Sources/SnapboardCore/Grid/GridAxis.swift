/// The gridlines along one axis of an intersection grid.
///
/// Line `k` stands at `position(k)`, computed from `k` afresh every time (never by adding a rounded
/// spacing up), so snapped points and drawn lines are the same doubles. That is the fix for seed 000's
/// bug, where integer spacing (414 / 5 = 82) left the outermost snap point at 332 while the line was at 328.
public struct GridAxis: Hashable, Sendable, Codable {
    /// How the lines are spaced.
    public enum Spacing: Hashable, Sendable, Codable {
        /// The length is cut into `n` equal parts (the seed's `kNUM_X_POINTS_PLUS_1`): lines at `k·length/n`.
        case divisions(Int)
        /// Lines every `pitch` units from 0: the last part may be shorter.
        case pitch(Double)
    }

    public let length: Double
    public let spacing: Spacing

    /// Creates an axis, or returns nil when it would have no interior line:
    /// the length must be positive and finite, divisions at least 2, and the pitch positive and shorter than the length.
    public init?(length: Double, spacing: Spacing) {
        guard length.isFinite, length > 0 else { return nil }
        switch spacing {
        case .divisions(let n): guard n >= 2, n <= 100_000 else { return nil }
        case .pitch(let p): guard p.isFinite, p > 0, p < length, length / p <= 100_000 else { return nil }
        }
        self.length = length
        self.spacing = spacing
    }

    /// The index of the last line strictly inside the axis; the first is 1.
    public var lastInteriorIndex: Int {
        switch spacing {
        case .divisions(let n): n - 1
        case .pitch(let p): Int((length / p).rounded(.up)) - 1
        }
    }

    /// The coordinate of line `k`.
    @inlinable public func position(_ k: Int) -> Double {
        switch spacing {
        case .divisions(let n): length * Double(k) / Double(n)
        case .pitch(let p): p * Double(k)
        }
    }

    /// Every drawn line, the canvas edges included: what a client strokes.
    public var lines: [Double] {
        var result = (0...lastInteriorIndex).map(position)
        result.append(length)
        return result
    }

    /// The interior line nearest to `v`.
    ///
    /// Rounding rule: a value exactly halfway between two lines goes to the higher one (round half up).
    /// Values before the first or past the last interior line, negative or beyond the canvas, clamp to
    /// those outermost lines. NaN clamps to the first line; callers reject non-finite input before this.
    @inlinable public func nearestIndex(to v: Double) -> Int {
        let t: Double
        switch spacing {
        case .divisions(let n): t = v * Double(n) / length
        case .pitch(let p): t = v / p
        }
        let last = lastInteriorIndex
        // The comparisons also catch NaN and infinities before the conversion to Int could trap.
        guard t >= 1 else { return 1 }
        guard t < Double(last) else { return last }
        let k = Int((t + 0.5).rounded(.down))
        return Swift.min(Swift.max(k, 1), last)
    }

    /// The coordinate of the interior line nearest to `v`; see `nearestIndex(to:)` for the rounding rule.
    @inlinable public func snap(_ v: Double) -> Double {
        position(nearestIndex(to: v))
    }
}
