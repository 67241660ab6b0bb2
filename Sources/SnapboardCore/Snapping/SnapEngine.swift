/// Resolves edge and grid snapping for one moved shape against the rest of a canvas (seed 003, done better):
///
/// - x and y are independent; on each, the shape's min, centre and max are compared with every other
///   shape's and with the canvas's edges and centre, through the sorted `EdgeIndex` (O(log n)).
/// - The nearest candidate within the engage distance wins; object snaps beat grid snaps per axis.
/// - An engaged snap holds (the grip) until the raw position moves past the release distance.
///
/// Each call is given the `ShapeStore` to read; the engine keeps none, since a stored copy would retain
/// every table of the store on each step of a drag.
struct SnapEngine {
    let settings: SnapSettings
    let grid: IntersectionGrid
    let engage: Double
    let release: Double
    /// The moved shape's slot.
    let moving: Int32
    /// The slots of every shape under a gesture (the moved one included), or nil when it is the only one:
    /// the common case skips the lookup.
    let busy: SlotBits?
    /// How many shapes are candidates (not excluded). A room where everyone drags at once has none, and
    /// then nothing is looked up but the canvas's own edges and the grid.
    let candidates: Int

    init(settings: SnapSettings, grid: IntersectionGrid, store: ShapeStore, zoom: Double, moving: Int32,
         busy: SlotBits?, busyCount: Int) {
        self.settings = settings
        self.grid = grid
        self.engage = settings.engageDistance(zoom: zoom)
        self.release = settings.releaseDistance(zoom: zoom)
        self.moving = moving
        self.busy = busy
        self.candidates = store.count - (busy == nil ? 1 : busyCount)
    }

    /// Owners that are not candidates: the moved shape and every shape under a gesture.
    @inline(__always) func isExcluded(_ owner: Int32) -> Bool {
        owner == moving || (busy?.contains(owner) ?? false)
    }

    /// The snap that holds on `axis` for a shape whose unsnapped bounds are `raw`, given the snap held before.
    /// `engaged` is true when the result is a new snap or a different one: time for one haptic.
    func resolve(_ axis: Axis, raw: Rect, held: AxisLock?, in store: ShapeStore) -> (lock: AxisLock?, engaged: Bool) {
        if let held {
            if held.target == .grid, let object = nearestObject(axis, raw, store) {
                return (object, true)
            }
            if held.target == .gap {
                // A gap holds while the same equal spacing is still there, within the release distance.
                if let again = gapCandidates(axis, raw, within: release, in: store).first(where: { $0.value == held.value && $0.probe == held.probe }) {
                    return (again, false)
                }
            } else if isStillThere(held, axis, store), abs(held.probe.of(raw, axis) - held.value) <= release {
                return (held, false)
            }
        }
        if let candidate = nearestObject(axis, raw, store) ?? gridCandidate(axis, raw) {
            return (candidate, candidate.differs(from: held))
        }
        return (nil, false)
    }

    /// The nearest object snap within the engage distance: an edge or centre, or an equal gap; an edge
    /// wins a tie.
    private func nearestObject(_ axis: Axis, _ raw: Rect, _ store: ShapeStore) -> AxisLock? {
        var best = objectCandidate(axis, raw, store)
        var distance = best.map { abs($0.value - $0.probe.of(raw, axis)) } ?? .infinity
        for gap in gapCandidates(axis, raw, within: engage, in: store) {
            let d = abs(gap.value - gap.probe.of(raw, axis))
            if d < distance { (best, distance) = (gap, d) }
        }
        return best
    }

    /// The nearest edge or centre of another shape or of the canvas within the engage distance.
    private func objectCandidate(_ axis: Axis, _ raw: Rect, _ store: ShapeStore) -> AxisLock? {
        guard settings.objects else { return nil }
        let edges = store.edges(axis)
        var best: (value: Double, probe: Probe, distance: Double)?
        for probe in Probe.allCases {
            let p = probe.of(raw, axis)
            guard let hit = edges.nearest(to: p, within: engage, excluding: isExcluded) else { continue }
            let distance = abs(hit.value - p)
            if distance <= engage, distance < best?.distance ?? .infinity {
                best = (hit.value, probe, distance)
            }
        }
        guard let best else { return nil }
        return AxisLock(target: target(at: best.value, axis, store), value: best.value, probe: best.probe)
    }

    /// The nearest interior gridline within the engage distance.
    private func gridCandidate(_ axis: Axis, _ raw: Rect) -> AxisLock? {
        guard settings.grid else { return nil }
        var best: AxisLock?, bestDistance = Double.infinity
        for probe in Probe.allCases {
            let p = probe.of(raw, axis)
            let line = grid.axis(axis).snap(p)
            let distance = abs(line - p)
            if distance <= engage, distance < bestDistance {
                best = AxisLock(target: .grid, value: line, probe: probe)
                bestDistance = distance
            }
        }
        return best
    }

    /// What stands at exactly `value`: the canvas if it does, else the shape with the smallest id, so the
    /// answer does not depend on the order in which the index was built.
    private func target(at value: Double, _ axis: Axis, _ store: ShapeStore) -> SnapTarget {
        var best: ShapeID?
        var canvas = false
        store.edges(axis).forEachOwner(at: value) { owner in
            if owner == EdgeIndex.canvasOwner {
                canvas = true
            } else if !isExcluded(owner) {
                let id = store.shape(inSlot: owner).id
                if best == nil || id < best! { best = id }
            }
        }
        if canvas { return .canvas }
        return best.map { .shape($0) } ?? .canvas
    }

    /// True while the held target still has an edge at the held value (another gesture may have moved it away).
    private func isStillThere(_ lock: AxisLock, _ axis: Axis, _ store: ShapeStore) -> Bool {
        switch lock.target {
        case .canvas, .grid, .gap:
            return true
        case .shape(let id):
            guard let slot = store.slot(of: id), !isExcluded(slot) else { return false }
            return store.edges(axis).contains(lock.value, owner: slot)
        }
    }

    /// The guide for a held snap: the line at the snapped coordinate, spanning the moved shape's `bounds`
    /// and everything aligned with it. Caches the aligned span in `lock`.
    func guide(_ axis: Axis, lock: inout AxisLock, bounds: Rect, in store: ShapeStore) -> Guide {
        let other = axis.other
        let length = other == .x ? store.width : store.height
        let aligned: ClosedRange<Double>
        if let cached = lock.alignedSpan, cached.revision == store.revision {
            aligned = cached.range
        } else {
            var lo = Double.infinity, hi = -Double.infinity
            if lock.target == .grid {
                (lo, hi) = (0, length)
            }
            store.edges(axis).forEachOwner(at: lock.value) { owner in
                if owner == EdgeIndex.canvasOwner {
                    (lo, hi) = (min(lo, 0), max(hi, length))
                } else if !isExcluded(owner) {
                    let span = store.bounds(inSlot: owner).span(other)
                    (lo, hi) = (min(lo, span.lowerBound), max(hi, span.upperBound))
                }
            }
            aligned = lo <= hi ? lo...hi : bounds.span(other)
            lock.alignedSpan = (aligned, store.revision)
        }
        let own = bounds.span(other)
        return Guide(axis: axis, at: lock.value, from: min(own.lowerBound, aligned.lowerBound),
                     to: max(own.upperBound, aligned.upperBound), target: lock.target)
    }
}
