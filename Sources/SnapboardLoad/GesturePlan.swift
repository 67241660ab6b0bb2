#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SnapboardCore
import SnapboardProtocol

/// One dragger's gesture: `steps` ops (a `begin`, updates, an `end`) sent one per tick of its schedule.
///
/// A move heads for an edge of another shape, or for a random point, along a line with a sideways wobble,
/// so it crosses gridlines and other shapes' edges and the server's snapping engages and lets go on the
/// way. A pinch scales about a point near the shape's centre; a rotation turns up to half a turn, through
/// the angle snaps. Parameters are cumulative since `begin` (P13), so each op is the whole state.
///
/// The content workload (`GesturePlan+Content.swift`) adds a text edit whose draft grows each step (P26),
/// a move of a selection (`shapes`, P29), and a drag of a connector's end (P28).
public struct GesturePlan: Sendable, Equatable {
    /// The op each step sends, by its wire name.
    public enum Kind: String, Sendable { case move, scale, rotate, text, endpoint }

    public var kind: Kind
    /// The shape the ops name; for `endpoint`, the connector. Unused when `shapes` is set.
    public var shape: ShapeID
    /// A selection gesture's shapes (2 or more): the ops name `shapes` instead of `shape` (P29).
    public var shapes: [ShapeID] = []
    /// Ops in the gesture, `begin` and `end` included (at least 2).
    public var steps: Int
    /// Move and endpoint: the final translation, and the amplitude of the sideways wobble.
    public var dx = 0.0, dy = 0.0, wobble = 0.0
    /// Scale: the final factor and the pinch centre.
    public var factor = 1.0, ax = 0.0, ay = 0.0
    /// Rotate: the final angle.
    public var radians = 0.0
    /// Text: the text the `end` commits, letters and spaces only (nothing to escape), and how many of its
    /// bytes each step adds to the draft: step `k` carries the first `k × lettersPerStep` (a `begin` none).
    public var text: [UInt8] = []
    public var lettersPerStep = 0
    /// Endpoint: the end dragged.
    public var end = ConnectorEnd.to

    public init(kind: Kind, shape: ShapeID, steps: Int) {
        self.kind = kind
        self.shape = shape
        self.steps = max(2, steps)
    }

    /// Plans a gesture on `shape` lasting 0.4–1.6 s at `rate` ops per second (or exactly `steps` ops), on a
    /// `width` × `height` canvas holding `others`; a move, or 15 % of the time a pinch and 15 % a rotation
    /// unless `movesOnly`.
    public static func plan(
        _ shape: Shape, others: [Shape], width: Double, height: Double, rate: Double, steps fixed: Int? = nil,
        movesOnly: Bool = false, using rng: inout SeededGenerator
    ) -> GesturePlan {
        let steps = length(rate: rate, steps: fixed, using: &rng)
        let roll = movesOnly ? 1 : rng.nextUnit()
        if roll < 0.15 {
            var g = GesturePlan(kind: .scale, shape: shape.id, steps: steps)
            let bounds = shape.bounds
            // Grow small shapes and shrink big ones, so repeated pinches stay in a sensible range.
            let grow = bounds.width * bounds.height < 6_000
            g.factor = grow ? 1.2 + 0.6 * rng.nextUnit() : 0.55 + 0.35 * rng.nextUnit()
            g.ax = clamp(shape.center.x + (rng.nextUnit() - 0.5) * bounds.width * 0.5, 0, width)
            g.ay = clamp(shape.center.y + (rng.nextUnit() - 0.5) * bounds.height * 0.5, 0, height)
            return g
        }
        if roll < 0.30 {
            var g = GesturePlan(kind: .rotate, shape: shape.id, steps: steps)
            g.radians = (rng.nextUnit() - 0.5) * 2 * .pi / 2
            return g
        }
        var g = GesturePlan(kind: .move, shape: shape.id, steps: steps)
        let mine = shape.bounds
        var target = Point(x: width * (0.1 + 0.8 * rng.nextUnit()), y: height * (0.1 + 0.8 * rng.nextUnit()))
        if !others.isEmpty, rng.nextUnit() < 0.7 {
            // Land beside another shape, a few units off its edge: inside the snap threshold.
            let other = others[Int(rng.next() % UInt64(others.count))]
            let theirs = other.bounds
            let nudge = (rng.nextUnit() - 0.5) * 8
            if rng.next() & 1 == 0 {
                let side: Double = rng.next() & 1 == 0 ? -1 : 1
                target = Point(x: other.center.x + side * (theirs.width + mine.width) / 2 + nudge,
                               y: other.center.y + (rng.nextUnit() - 0.5) * theirs.height)
            } else {
                let side: Double = rng.next() & 1 == 0 ? -1 : 1
                target = Point(x: other.center.x + (rng.nextUnit() - 0.5) * theirs.width,
                               y: other.center.y + side * (theirs.height + mine.height) / 2 + nudge)
            }
        }
        let margin = 8.0
        target.x = clamp(target.x, margin + mine.width / 2, width - margin - mine.width / 2)
        target.y = clamp(target.y, margin + mine.height / 2, height - margin - mine.height / 2)
        g.dx = target.x - shape.center.x
        g.dy = target.y - shape.center.y
        g.wobble = 24 * (rng.nextUnit() - 0.5)
        return g
    }

    /// The op of step `step` with id `id`, as JSON; `ending` makes it the `end` wherever the gesture is.
    /// Values are rounded (2 decimals for positions, 4 for factors and angles) to keep messages short.
    public func message(step: Int, id: String, ending: Bool = false) -> [UInt8] {
        let t = Double(min(step, steps - 1)) / Double(steps - 1)
        let phase = ending && step > 0 ? GesturePhase.end : step == 0 ? .begin : step >= steps - 1 ? .end : .update
        let op: CanvasOp
        switch kind {
        case .move:
            let (x, y) = translation(at: t)
            let translation = Point(x: Self.rounded(x), y: Self.rounded(y))
            op = shapes.isEmpty ? .move(shape, phase: phase, translation: translation) : .moveMany(shapes, phase: phase, translation: translation)
        case .scale:
            op = .scale(shape, phase: phase, factor: Self.rounded(1 + (factor - 1) * t, places: 4),
                        anchor: Point(x: Self.rounded(ax), y: Self.rounded(ay)))
        case .rotate:
            op = .rotate(shape, phase: phase, radians: Self.rounded(radians * t, places: 4))
        case .text:
            op = .text(shape, phase: phase, text: phase == .begin ? nil : String(decoding: draft(step: step), as: UTF8.self))
        case .endpoint:
            let (x, y) = translation(at: t)
            op = .endpoint(shape, end: end, phase: phase, translation: Point(x: Self.rounded(x), y: Self.rounded(y)))
        }
        return ClientMessage.op(id: id, op).encode()
    }

    /// A move's or an endpoint's translation at `t` (0 at `begin`, 1 at the last step). The wobble is a
    /// sine over the whole path: zero at both ends, so the end lands on target.
    func translation(at t: Double) -> (x: Double, y: Double) {
        let length = max(1, (dx * dx + dy * dy).squareRoot())
        let side = wobble * sin(t * .pi)
        return (dx * t - dy / length * side, dy * t + dx / length * side)
    }

    /// A text edit's draft at step `step`: the text so far, all of it from the last step on.
    func draft(step: Int) -> ArraySlice<UInt8> {
        text[..<min(text.count, max(0, min(step, steps - 1)) * lettersPerStep)]
    }

    /// The same op as `message(step:id:ending:)`, with id `id`, written into `bytes` (cleared first, its
    /// capacity kept): the load tool's send path, which sends tens of thousands a second and so writes the
    /// few fields of a gesture op straight into a reused buffer instead of going through `ClientMessage`.
    public func write(step: Int, id: OpTag, ending: Bool = false, into bytes: inout [UInt8]) {
        let t = Double(min(step, steps - 1)) / Double(steps - 1)
        let phase = ending && step > 0 ? GesturePhase.end : step == 0 ? .begin : step >= steps - 1 ? .end : .update
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: #"{"type":"op","id":""#.utf8)
        Self.digits(Int64(id.client), into: &bytes)
        bytes.append(UInt8(ascii: "."))
        Self.digits(Int64(id.counter), into: &bytes)
        bytes.append(contentsOf: #"","op":""#.utf8)
        bytes.append(contentsOf: kind.rawValue.utf8)
        if shapes.isEmpty {
            bytes.append(contentsOf: #"","shape":""#.utf8)
            bytes.append(contentsOf: shape.utf8)
            bytes.append(UInt8(ascii: "\""))
        } else {
            bytes.append(contentsOf: #"","shapes":["#.utf8)
            for (n, id) in shapes.enumerated() {
                if n > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: id.utf8)
                bytes.append(UInt8(ascii: "\""))
            }
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(contentsOf: #","phase":""#.utf8)
        bytes.append(contentsOf: phase.rawValue.utf8)
        bytes.append(UInt8(ascii: "\""))
        switch kind {
        case .move:
            let (x, y) = translation(at: t)
            Self.field(#","dx":"#, x, places: 2, into: &bytes)
            Self.field(#","dy":"#, y, places: 2, into: &bytes)
        case .endpoint:
            bytes.append(contentsOf: #","end":""#.utf8)
            bytes.append(contentsOf: end.rawValue.utf8)
            bytes.append(UInt8(ascii: "\""))
            let (x, y) = translation(at: t)
            Self.field(#","dx":"#, x, places: 2, into: &bytes)
            Self.field(#","dy":"#, y, places: 2, into: &bytes)
        case .text:
            // Letters and spaces only: written as they are, with nothing to escape.
            if phase != .begin {
                bytes.append(contentsOf: #","text":""#.utf8)
                bytes.append(contentsOf: draft(step: step))
                bytes.append(UInt8(ascii: "\""))
            }
        case .scale:
            Self.field(#","factor":"#, 1 + (factor - 1) * t, places: 4, into: &bytes)
            Self.field(#","ax":"#, ax, places: 2, into: &bytes)
            Self.field(#","ay":"#, ay, places: 2, into: &bytes)
        case .rotate:
            Self.field(#","radians":"#, radians * t, places: 4, into: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `,"key":` and `value` rounded to `places` decimals, in the fewest digits that read back as the
    /// same double as `rounded(value, places:)` (an integer when it is one, as `JSONWriter` writes it).
    static func field(_ key: StaticString, _ value: Double, places: Int, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        let scale: Int64 = places == 4 ? 10_000 : 100
        guard value.isFinite, abs(value) < 1e12 else {
            bytes.append(contentsOf: JSONWriter.text(rounded(value, places: places)).utf8)
            return
        }
        var scaled = Int64((value * Double(scale)).rounded())
        if scaled < 0 {
            bytes.append(UInt8(ascii: "-"))
            scaled = -scaled
        }
        digits(scaled / scale, into: &bytes)
        var fraction = scaled % scale, width = places
        guard fraction != 0 else { return }
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        bytes.append(UInt8(ascii: "."))
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor % 10))
            divisor /= 10
        }
    }

    static func digits(_ value: Int64, into bytes: inout [UInt8]) {
        var v = value
        if v < 0 {
            bytes.append(UInt8(ascii: "-"))
            v = -v
        }
        var divisor: Int64 = 1
        while divisor <= v / 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(v / divisor % 10))
            divisor /= 10
        }
    }

    /// Ops in a gesture of 0.4–1.6 s at `rate` ops per second, or `fixed` when given. The duration is drawn
    /// either way, so the draws after it are the same with and without `fixed`, as they always were.
    static func length(rate: Double, steps fixed: Int?, using rng: inout SeededGenerator) -> Int {
        let seconds = 0.4 + 1.2 * rng.nextUnit()
        return fixed ?? max(3, Int((seconds * rate).rounded()))
    }

    /// `value` rounded to `places` decimals.
    static func rounded(_ value: Double, places: Int = 2) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}

func clamp(_ v: Double, _ lo: Double, _ hi: Double) -> Double { hi < lo ? (lo + hi) / 2 : min(max(v, lo), hi) }
