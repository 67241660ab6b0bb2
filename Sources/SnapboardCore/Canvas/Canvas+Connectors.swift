/// Connectors (1.7, P28): `line` and `arrow` shapes whose ends are free points or bound to anchors of other
/// shapes. A bound end follows its shape: whenever a commit moves, scales, turns or brings back a shape, the
/// connectors bound to it are laid again in the same commit, so replay gives the same geometry. Removing a
/// shape frees the ends bound to it, where they are.
extension Canvas {
    /// The most connector ends one shape may hold bound.
    public static let maxBoundEnds = 100

    /// True when the canvas holds a line or an arrow.
    public var holdsConnectors: Bool { store.shapes.contains { $0.kind.isConnector } }

    /// How close, in canvas units at zoom 1, an end must come to an anchor to bind to it: twice the edge
    /// snapping threshold.
    var anchorReach: Double { 2 * config.snapping.threshold }

    // MARK: Operations

    mutating func connect(shapeID: ShapeID?, spec: ShapeSpec, from: EndSpec, to: EndSpec, zoom: Double) throws(Rejection) -> Outcome {
        let kind = try ShapeKind.make(name: spec.kind)
        guard kind.isConnector else { throw Rejection(.badShape, "connect draws a line or an arrow, not a \(kind.name)") }
        if let shapeID {
            guard Shape.isValidID(shapeID) else { throw Rejection(.badShapeID, "shape ids are 1–64 of [A-Za-z0-9_-]") }
            guard store.slot(of: shapeID) == nil else { throw Rejection(.badShapeID, "shape \(shapeID) already exists") }
        }
        guard store.count < config.maxShapes else { throw Rejection(.canvasFull, "the canvas holds \(config.maxShapes) shapes") }
        if let fill = spec.fill, !fill.isValid { throw Rejection(.badShape, "fill components must be within 0...1") }
        try spec.style.validate()
        if let text = spec.text { try ShapeText.validate(text) }
        try requireZRoom()
        let (a, fromBinding) = try resolve(from, zoom: zoom)
        let (b, toBinding) = try resolve(to, zoom: zoom, also: fromBinding)

        // Validated: from here on the operation commits.
        var blank = Shape(id: "", kind: kind, center: .zero, size: Size(width: 0, height: Shape.connectorThickness),
                          fill: spec.fill ?? HSBColor(h: 0, s: 0, b: 0, a: 0), z: 0)
        if let rgb = spec.style.fill { blank.fill = HSBColor(rgb: rgb, alpha: spec.fill?.a ?? 1) }
        (_, blank.style) = StylePatch(stroke: spec.style.stroke, strokeWidth: spec.style.strokeWidth,
                                      opacity: spec.style.opacity, fontSize: spec.style.fontSize).applied(to: blank)
        blank.id = shapeID ?? freshID()
        blank.z = nextZ
        blank.text = spec.text ?? ""
        blank.from = fromBinding
        blank.to = toBinding
        return commit(.create(span(blank, from: a, to: b), rng: rng.state))
    }

    /// Where an end of a new connector lies and what it is bound to: a point is kept on the canvas and binds
    /// as a dragged end does (`snapEnd`); a binding is taken as given, when its shape exists, is no
    /// connector, has room for another end and the anchor is valid.
    private func resolve(_ spec: EndSpec, zoom: Double, also other: Binding? = nil) throws(Rejection) -> (Point, Binding?) {
        switch spec {
        case .at(let p):
            try Canvas.requireFinite(p.x, p.y)
            guard Rect(x: 0, y: 0, width: config.width, height: config.height).contains(p) else {
                throw Rejection(.outOfBounds, "a connector's end lies outside the canvas")
            }
            let snapped = snapEnd(p, zoom: zoom, connector: nil, other: other)
            return (snapped.point, snapped.binding)
        case .bound(let binding):
            guard binding.anchor.isValid else { throw Rejection(.outOfRange, "an anchor's u and v are each within -0.5...0.5") }
            guard let target = store.shape(binding.shape) else { throw Rejection(.unknownShape, "no shape \(binding.shape.prefix(64))") }
            guard !target.kind.isConnector else { throw Rejection(.badShape, "a connector's end binds to a shape, not to a connector") }
            guard boundEnds(on: target.id) + (other?.shape == target.id ? 1 : 0) < Canvas.maxBoundEnds else {
                throw Rejection(.outOfRange, "shape \(target.id) holds \(Canvas.maxBoundEnds) connector ends")
            }
            return (onCanvas(target.point(of: binding.anchor)), binding)
        }
    }

    /// Moves the dragged end of a connector to its origin's end plus `t`, kept on the canvas, and binds it
    /// (`snapEnd`), with a haptic when it binds to a new anchor and guides through the anchor while it holds.
    mutating func dragEnd(_ g: inout Gesture, _ end: ConnectorEnd, by t: Point) -> Outcome {
        var outcome = Outcome()
        let raw = g.origin.endpoint(end) + t
        let kept = onCanvas(raw)
        let id = g.origin.id
        let other: ConnectorEnd = end == .from ? .to : .from
        let snapped = g.snaps ? snapEnd(kept, zoom: g.zoom, connector: id, other: g.origin.binding(other)) : (point: kept, binding: nil)
        if let binding = snapped.binding, binding.anchor.name != nil {
            if g.binding != binding { outcome.events.append(.haptic(Haptic(reason: .anchor))) }
            if let target = store.shape(binding.shape) {
                let b = target.bounds
                outcome.events.append(.guide(Guide(axis: .x, at: snapped.point.x, from: min(b.minY, snapped.point.y), to: max(b.maxY, snapped.point.y), target: .shape(target.id))))
                outcome.events.append(.guide(Guide(axis: .y, at: snapped.point.y, from: min(b.minX, snapped.point.x), to: max(b.maxX, snapped.point.x), target: .shape(target.id))))
            }
        }
        g.binding = snapped.binding
        var shape = store.shape(inSlot: g.slot)
        shape.setBinding(snapped.binding, end)
        shape = end == .from ? span(shape, from: snapped.point, to: g.origin.endpoints.to)
                             : span(shape, from: g.origin.endpoints.from, to: snapped.point)
        store.setLive(shape, inSlot: g.slot)
        outcome.changed = [shape]
        return outcome
    }

    /// Where an end at `p` binds, for connector `connector` (nil while it is being drawn) whose other end is
    /// bound by `other`: to the nearest named anchor within `anchorReach / zoom` of a shape that is no
    /// connector and has room for another end (ties to the topmost shape); otherwise to the point under it
    /// on the topmost such shape whose outline holds it; otherwise nowhere, and the end stays at `p`.
    func snapEnd(_ p: Point, zoom: Double, connector: ShapeID?, other: Binding?) -> (point: Point, binding: Binding?) {
        let reach = anchorReach / max(zoom, 1e-9)
        let cells = store.cells
        var seen = Set<Int32>()
        var nearest: (distance: Double, shape: Shape, anchor: Anchor, point: Point)?
        var under: Shape?
        for row in cells.cell(p.y - reach, .y)...cells.cell(p.y + reach, .y) {
            for column in cells.cell(p.x - reach, .x)...cells.cell(p.x + reach, .x) {
                for entry in cells.entries(column: column, row: row) where seen.insert(entry.slot).inserted {
                    let shape = store.shape(inSlot: entry.slot)
                    guard !shape.kind.isConnector, shape.id != connector else { continue }
                    let b = shape.bounds
                    guard p.x >= b.minX - reach, p.x <= b.maxX + reach, p.y >= b.minY - reach, p.y <= b.maxY + reach else { continue }
                    let held = boundEnds(on: shape.id) - (connector.map { boundEnds(of: $0, on: shape.id) } ?? 0)
                    guard held + (other?.shape == shape.id ? 1 : 0) < Canvas.maxBoundEnds else { continue }
                    for anchor in Anchor.named {
                        let q = shape.point(of: anchor)
                        let d = ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot()
                        guard d <= reach else { continue }
                        if let best = nearest, (best.distance, -best.shape.z, best.shape.id) <= (d, -shape.z, shape.id) { continue }
                        nearest = (d, shape, anchor, q)
                    }
                    if shape.contains(p), under.map({ Canvas.drawingOrder($0, shape) }) ?? true { under = shape }
                }
            }
        }
        if let nearest { return (onCanvas(nearest.point), Binding(shape: nearest.shape.id, anchor: nearest.anchor)) }
        if let under {
            let anchor = under.anchor(at: p)
            return (onCanvas(under.point(of: anchor)), Binding(shape: under.id, anchor: anchor))
        }
        return (p, nil)
    }

    /// A dragged end's gesture ended: the connector commits whole with its new end, or nothing when its ends
    /// and bindings are as they were committed.
    mutating func commitEndpoint(_ g: Gesture) -> Outcome {
        let shape = store.shape(inSlot: g.slot)
        guard !Canvas.sameConnector(shape, g.committed) else {
            store.setLive(g.committed, inSlot: g.slot)
            store.reindex(g.committed.id)
            if g.origin.z != g.committed.z, nextZ == g.origin.z + 1 { nextZ = g.origin.z }
            var outcome = Outcome()
            outcome.changed = [g.committed]
            outcome.unchanged = true
            outcome.seq = seq
            return outcome
        }
        return commit(.reconnect(shape, before: g.committed))
    }

    /// `connector` laid from `a` to `b`, each kept on the canvas first (`onCanvas`): an end recomputed from a
    /// connector's frame can lie a rounding error past an edge.
    func span(_ connector: Shape, from a: Point, to b: Point) -> Shape {
        connector.spanning(from: onCanvas(a), to: onCanvas(b))
    }

    /// `p` kept on the canvas: a connector's ends are, so its centre always is, even where a bound shape
    /// hangs over an edge of an unbounded canvas.
    func onCanvas(_ p: Point) -> Point {
        Point(x: min(max(p.x, 0), config.width), y: min(max(p.y, 0), config.height))
    }

    /// True when connectors `a` and `b` have the same bindings and the same ends, to within 10⁻⁹.
    static func sameConnector(_ a: Shape, _ b: Shape) -> Bool {
        a.from == b.from && a.to == b.to && samePoint(a.endpoints.from, b.endpoints.from) && samePoint(a.endpoints.to, b.endpoints.to)
    }

    /// True when `p` and `q` are equal to within 10⁻⁹ of each coordinate's size.
    static func samePoint(_ p: Point, _ q: Point) -> Bool {
        abs(p.x - q.x) <= 1e-9 * max(1, abs(p.x), abs(q.x)) && abs(p.y - q.y) <= 1e-9 * max(1, abs(p.y), abs(q.y))
    }

    // MARK: Bindings kept up to date

    /// How many connector ends are bound to `target`, in the committed state.
    func boundEnds(on target: ShapeID) -> Int {
        guard let connectors = bindings[target] else { return 0 }
        return connectors.reduce(0) { n, id in n + boundEnds(of: id, on: target) }
    }

    /// How many of connector `id`'s committed ends are bound to `target`.
    func boundEnds(of id: ShapeID, on target: ShapeID) -> Int {
        boundTo[id]?.reduce(0) { $0 + ($1 == target ? 1 : 0) } ?? 0
    }

    /// `shape` as last committed: its gesture's committed copy while one runs.
    func committed(_ shape: Shape) -> Shape { gesture(on: shape.id)?.committed ?? shape }

    /// Files connector `id`'s committed bindings as `shape`'s (none when nil), in place of what was filed.
    mutating func fileBindings(of id: ShapeID, as shape: Shape?) {
        for target in boundTo.removeValue(forKey: id) ?? [] {
            bindings[target]?.remove(id)
            if bindings[target]?.isEmpty == true { bindings[target] = nil }
        }
        let targets = [shape?.from?.shape, shape?.to?.shape].compactMap { $0 }
        guard !targets.isEmpty else { return }
        boundTo[id] = targets
        for target in targets { bindings[target, default: []].insert(id) }
    }

    /// `connector` with the bindings it may keep: each to an existing shape that is no connector, with
    /// room for another end, and a valid anchor; the others freed where they are.
    func sanitized(_ connector: Shape) -> Shape {
        var shape = connector
        var taken: [ShapeID: Int] = [:]
        for end in ConnectorEnd.allCases {
            guard let binding = shape.binding(end) else { continue }
            let target = store.shape(binding.shape)
            let held = boundEnds(on: binding.shape) - boundEnds(of: connector.id, on: binding.shape) + taken[binding.shape, default: 0]
            if target == nil || target!.kind.isConnector || !binding.anchor.isValid || held >= Canvas.maxBoundEnds {
                shape.setBinding(nil, end)
            } else {
                taken[binding.shape, default: 0] += 1
            }
        }
        return shape
    }

    /// `connector` laid again from its bound ends, each at its anchor on its shape (live or committed), and
    /// its free ends where they are.
    func laid(_ connector: Shape, live: Bool) -> Shape {
        func end(_ e: ConnectorEnd) -> Point {
            guard let binding = connector.binding(e), let target = store.shape(binding.shape) else { return connector.endpoint(e) }
            return (live ? target : committed(target)).point(of: binding.anchor)
        }
        return span(connector, from: end(.from), to: end(.to))
    }

    /// Lays again every connector bound to one of `targets`: in the store, or, under a gesture, its committed
    /// copy (where the gesture goes back to, and what replay, which has no gestures, lays); returns those
    /// that changed in the store, in id order.
    mutating func follow(_ targets: some Sequence<ShapeID>) -> [Shape] {
        var ids = Set<ShapeID>()
        for target in targets { if let bound = bindings[target] { ids.formUnion(bound) } }
        var changed: [Shape] = []
        for id in ids.sorted() {
            guard let slot = store.slot(of: id) else { continue }
            if var g = gestures[slot] {
                g.committed = laid(g.committed, live: false)
                gestures.set(g, at: slot)
                continue
            }
            let old = store.shape(inSlot: slot)
            let new = laid(old, live: false)
            guard new != old else { continue }
            store.setLive(new, inSlot: slot)
            store.reindex(id)
            changed.append(new)
        }
        return changed
    }

    /// The connectors bound to `target` and under no gesture, laid from the live state: what a live delta
    /// of a gesture on `target` shows with it. Nothing is stored.
    func liveFollowers(of target: ShapeID) -> [Shape] {
        guard let bound = bindings[target] else { return [] }
        return bound.sorted().compactMap { id in
            guard let slot = store.slot(of: id), gestures[slot] == nil else { return nil }
            return laid(store.shape(inSlot: slot), live: true)
        }
    }

    /// Frees every end bound to one of `removed`, where it is (committed and live), leaving out connectors
    /// that are themselves removed; returns the connectors changed.
    mutating func free(boundTo removed: Set<ShapeID>) -> [Shape] {
        var ids = Set<ShapeID>()
        for target in removed { if let bound = bindings.removeValue(forKey: target) { ids.formUnion(bound) } }
        for id in ids {
            let kept = (boundTo[id] ?? []).filter { !removed.contains($0) }
            boundTo[id] = kept.isEmpty ? nil : kept
        }
        var changed: [Shape] = []
        for id in ids.sorted() where !removed.contains(id) {
            guard let slot = store.slot(of: id) else { continue }
            var shape = store.shape(inSlot: slot)
            for end in ConnectorEnd.allCases where shape.binding(end).map({ removed.contains($0.shape) }) == true { shape.setBinding(nil, end) }
            store.setLive(shape, inSlot: slot)
            if var g = gestures[slot] {
                for end in ConnectorEnd.allCases {
                    if g.committed.binding(end).map({ removed.contains($0.shape) }) == true { g.committed.setBinding(nil, end) }
                    if g.origin.binding(end).map({ removed.contains($0.shape) }) == true { g.origin.setBinding(nil, end) }
                }
                if g.binding.map({ removed.contains($0.shape) }) == true { g.binding = nil }
                gestures.set(g, at: slot)
            }
            changed.append(shape)
        }
        // An end being dragged may hold a binding to a removed shape that nothing committed yet.
        for (slot, var g) in gestures.all where g.binding.map({ removed.contains($0.shape) }) == true {
            var shape = store.shape(inSlot: slot)
            for end in ConnectorEnd.allCases where shape.binding(end).map({ removed.contains($0.shape) }) == true { shape.setBinding(nil, end) }
            store.setLive(shape, inSlot: slot)
            g.binding = nil
            gestures.set(g, at: slot)
            if !changed.contains(where: { $0.id == shape.id }) { changed.append(shape) }
        }
        return changed
    }

    /// Rebuilds the index of bindings from the committed shapes.
    mutating func rebuildBindings() {
        (bindings, boundTo) = ([:], [:])
        for shape in store.shapes where shape.kind.isConnector { fileBindings(of: shape.id, as: committed(shape)) }
    }
}
