/// Equal-spacing ("gap") snapping, as tldraw, Figma and Excalidraw do it: a moved shape snaps so that its
/// gap to a neighbour equals a gap already there. On axis x the neighbours are the shapes whose vertical
/// span overlaps the moved shape's (its row); on y, its column.
///
/// - **Between two neighbours**: centred in the space between the nearest one before it and the nearest
///   one after it.
/// - **At the end of a row**: after its nearest neighbour before it by the gap that neighbour has to its
///   own nearest neighbour (and the mirror image at the other end).
///
/// Neighbours come from the cell index, nearest first, never from a scan of the canvas, and only within
/// `gapReach` units.
extension SnapEngine {
    /// How far, in canvas units, a neighbour is looked for.
    static let gapReach = 1_024.0

    /// The gap snaps for a shape whose unsnapped bounds are `raw` whose probe lies within `within` of
    /// where it would snap to.
    func gapCandidates(_ axis: Axis, _ raw: Rect, within: Double, in store: ShapeStore) -> [AxisLock] {
        // An equal gap needs two other shapes: a neighbour and its neighbour, or one on each side.
        guard settings.objects, settings.gaps, candidates >= 2 else { return [] }
        let band = raw.span(axis.other)
        let (low, high) = (raw.span(axis).lowerBound, raw.span(axis).upperBound)
        let length = high - low
        var found: [AxisLock] = []
        func lock(_ value: Double, _ probe: Probe, gap: Double, _ segments: [GapGuide.Segment]) {
            found.append(AxisLock(target: .gap, value: value, probe: probe, gap: GapGuide(axis: axis, gap: gap, segments: segments)))
        }
        // Neighbours may overlap the moved shape by as much as a snap can close.
        let before = neighbour(axis, before: true, of: low + within, band: band, in: store)
        let after = neighbour(axis, before: false, of: high - within, band: band, in: store)
        if let before, let after {
            let gap = (after.min - before.max - length) / 2
            let target = before.max + gap
            if gap > 0, abs(target - low) <= within {
                lock(target, .min, gap: gap, [Self.segment(before.max, target, before.span, band),
                                                Self.segment(target + length, after.min, band, after.span)])
            }
        }
        // A row end repeats the outer gap only if it is within `within` of the gap the moved shape has now,
        // so the outer neighbour is looked for no further than that.
        if let before, low - before.max + within >= 0,
           let outer = neighbour(axis, before: true, of: before.min, band: band, reach: low - before.max + within, in: store) {
            let gap = before.min - outer.max
            let target = before.max + gap
            if gap > 0, abs(target - low) <= within {
                lock(target, .min, gap: gap, [Self.segment(outer.max, before.min, outer.span, before.span),
                                                Self.segment(before.max, target, before.span, band)])
            }
        }
        if let after, after.min - high + within >= 0,
           let outer = neighbour(axis, before: false, of: after.max, band: band, reach: after.min - high + within, in: store) {
            let gap = outer.min - after.max
            let target = after.min - gap
            if gap > 0, abs(target - high) <= within {
                lock(target, .max, gap: gap, [Self.segment(target, after.min, band, after.span),
                                                Self.segment(after.max, outer.min, after.span, outer.span)])
            }
        }
        return found
    }

    /// A neighbour as gap snapping sees it: its extent on the axis and its span across.
    struct Neighbour {
        var min: Double
        var max: Double
        var span: ClosedRange<Double>
        var id: ShapeID
    }

    /// The nearest candidate shape entirely before `edge` (its max at most `edge`) or entirely after it,
    /// whose span across overlaps `band`, within `reach`. Ties go to the smallest id, so the answer does
    /// not depend on slot numbers.
    func neighbour(_ axis: Axis, before: Bool, of edge: Double, band: ClosedRange<Double>, reach: Double = gapReach,
                   in store: ShapeStore) -> Neighbour? {
        let reach = Swift.min(reach, Self.gapReach)
        let cells = store.cells
        let other = axis.other
        let first = cells.cell(band.lowerBound, other), last = cells.cell(band.upperBound, other)
        var best: (distance: Double, neighbour: Neighbour)?
        var c = cells.cell(edge, axis)
        let stop = cells.cell(before ? edge - reach : edge + reach, axis)
        while true {
            for line in first...last {
                let entries = axis == .x ? cells.entries(column: c, row: line) : cells.entries(column: line, row: c)
                for entry in entries where !isExcluded(entry.slot) {
                    let span = entry.bounds.span(axis), across = entry.bounds.span(other)
                    let distance = before ? edge - span.upperBound : span.lowerBound - edge
                    guard distance >= 0, distance <= reach,
                          across.lowerBound < band.upperBound, across.upperBound > band.lowerBound else { continue }
                    if let best, distance > best.distance { continue }
                    let id = store.shape(inSlot: entry.slot).id
                    if let best, distance == best.distance, best.neighbour.id <= id { continue }
                    best = (distance, Neighbour(min: span.lowerBound, max: span.upperBound, span: across, id: id))
                }
            }
            // Shapes filed only in cells further out are at least this far from the edge.
            let further = before ? edge - Double(c) * cells.size : Double(c + 1) * cells.size - edge
            if let best, best.distance <= further { break }
            if c == stop { break }
            c += before ? -1 : 1
        }
        return best?.neighbour
    }

    /// A gap from `from` to `to`, drawn across at the middle of where the two spans overlap.
    static func segment(_ from: Double, _ to: Double, _ a: ClosedRange<Double>, _ b: ClosedRange<Double>) -> GapGuide.Segment {
        let lo = Swift.max(a.lowerBound, b.lowerBound), hi = Swift.min(a.upperBound, b.upperBound)
        return GapGuide.Segment(from: from, to: to, at: lo <= hi ? (lo + hi) / 2 : (a.lowerBound + a.upperBound + b.lowerBound + b.upperBound) / 4)
    }
}
