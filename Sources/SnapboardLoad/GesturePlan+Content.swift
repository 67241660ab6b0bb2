#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SnapboardCore

/// The content workload's gestures (`LoadPlan.Workload.content`): typing, moving a selection, and dragging
/// a connector's end, each 0.4–1.6 s at the op rate like a drag.
extension GesturePlan {
    /// A text edit of `shape` (P26): a `begin`, updates whose draft grows by 2–4 letters a step, and an
    /// `end` that commits the whole text. Only the `end` commits; the drafts are not broadcast.
    public static func textEdit(on shape: ShapeID, rate: Double, steps fixed: Int? = nil, using rng: inout SeededGenerator) -> GesturePlan {
        var g = GesturePlan(kind: .text, shape: shape, steps: length(rate: rate, steps: fixed, using: &rng))
        g.lettersPerStep = 2 + Int(rng.next() % 3)
        g.text = words(count: (g.steps - 1) * g.lettersPerStep, using: &rng)
        return g
    }

    /// A move of `selection` as one (P29) on a `width` × `height` canvas, by at most a sixth of the
    /// canvas's smaller side and no further than keeps the selection's bounds 8 units inside the canvas,
    /// along a wobbling path. Fewer than 2 shapes make it a move of the one (`plan`, moves only).
    public static func selectionMove(
        _ selection: [Shape], others: [Shape], width: Double, height: Double, rate: Double, steps fixed: Int? = nil,
        using rng: inout SeededGenerator
    ) -> GesturePlan? {
        guard let first = selection.first else { return nil }
        guard selection.count >= 2 else {
            return plan(first, others: others, width: width, height: height, rate: rate, steps: fixed, movesOnly: true, using: &rng)
        }
        var g = GesturePlan(kind: .move, shape: first.id, steps: length(rate: rate, steps: fixed, using: &rng))
        g.shapes = selection.map(\.id)
        let bounds = selection.dropFirst().reduce(first.bounds) { $0.union($1.bounds) }
        let reach = min(width, height) / 6, margin = 8.0
        // A selection of shapes scattered over the canvas has little room: it moves within what it has.
        func offset(_ low: Double, _ high: Double) -> Double {
            let lo = max(-reach, low), hi = min(reach, high)
            return lo <= hi ? lo + (hi - lo) * rng.nextUnit() : 0
        }
        g.dx = offset(margin - bounds.minX, width - margin - bounds.maxX)
        g.dy = offset(margin - bounds.minY, height - margin - bounds.maxY)
        g.wobble = 24 * (rng.nextUnit() - 0.5)
        return g
    }

    /// A drag of `connector`'s `to` end (P28) on a `width` × `height` canvas: 60 % of the time onto a named
    /// anchor of one of `others` (so it binds there), otherwise 40–160 units off in some direction (so it
    /// lets go, or lands on whatever lies there), along a wobbling path that crosses other shapes on the way.
    public static func endpoint(
        _ connector: Shape, others: [Shape], width: Double, height: Double, rate: Double, steps fixed: Int? = nil,
        using rng: inout SeededGenerator
    ) -> GesturePlan {
        var g = GesturePlan(kind: .endpoint, shape: connector.id, steps: length(rate: rate, steps: fixed, using: &rng))
        g.end = .to
        let start = connector.endpoint(.to)
        let bound = [connector.from?.shape, connector.to?.shape]
        let targets = others.filter { !$0.kind.isConnector && $0.id != connector.id && !bound.contains($0.id) }
        var target: Point
        if !targets.isEmpty, rng.nextUnit() < 0.6 {
            let other = targets[Int(rng.next() % UInt64(targets.count))]
            target = other.point(of: Anchor.named[Int(rng.next() % UInt64(Anchor.named.count))])
        } else {
            let angle = 2 * Double.pi * rng.nextUnit(), distance = 40 + 120 * rng.nextUnit()
            target = Point(x: start.x + distance * cos(angle), y: start.y + distance * sin(angle))
        }
        target.x = clamp(target.x, 1, width - 1)
        target.y = clamp(target.y, 1, height - 1)
        g.dx = target.x - start.x
        g.dy = target.y - start.y
        g.wobble = 16 * (rng.nextUnit() - 0.5)
        return g
    }

    /// `count` bytes of lower-case words separated by single spaces.
    static func words(count: Int, using rng: inout SeededGenerator) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var word = 0, length = 3 + Int(rng.next() % 6)
        while out.count < count {
            if word == length {
                out.append(UInt8(ascii: " "))
                (word, length) = (0, 3 + Int(rng.next() % 6))
            } else {
                out.append(UInt8(ascii: "a") + UInt8(rng.next() % 26))
                word += 1
            }
        }
        return out
    }
}
