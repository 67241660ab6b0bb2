import SnapboardCore

/// The content workload: arrows between the seeded shapes, and draggers that type, move selections and
/// drag connector ends in turn instead of dragging single shapes.
extension LoadPlan {
    /// What the draggers do.
    public enum Workload: String, Sendable, CaseIterable {
        /// Drags, pinches and turns of one shape at a time (`GesturePlan.plan`).
        case drags
        /// Text edits, moves of a selection and drags of a connector's end, in turn.
        case content
    }

    /// A content dragger's gestures, in the order it takes them (each dragger starting at its own).
    public enum ContentKind: Int, Sendable, CaseIterable {
        case text, selection, endpoint
    }

    /// How many shapes a content dragger moves as one: its share, up to this many.
    public static let selectionSize = 20

    /// The id of seeded connector `index`, the arrow from shape `2 × index` to shape `2 × index + 1`.
    public static func connectorID(_ index: Int) -> ShapeID { "C\(index)" }

    /// Connectors each canvas is seeded with: one between each pair of shapes for the content workload.
    public var connectors: Int { workload == .content ? shapes / 2 : 0 }

    /// The connectors dragger `dragger` drags the ends of: its own share when there are at least as many
    /// as draggers, otherwise every connector (as `shapes(of:)`).
    public func connectors(of dragger: Int) -> [ShapeID] {
        guard connectors > 0 else { return [] }
        if connectors >= draggers, draggers > 0 {
            return stride(from: dragger, to: connectors, by: draggers).map(Self.connectorID)
        }
        return (0..<connectors).map(Self.connectorID)
    }

    /// The shapes dragger `dragger` moves as one: the first `selectionSize` of its share.
    public func selection(of dragger: Int) -> [ShapeID] { Array(shapes(of: dragger).prefix(Self.selectionSize)) }

    /// The seeding's connects: arrow `k` bound centre to centre from shape `2k` to shape `2k + 1` (P28).
    func connectOps() -> [CanvasOp] {
        (0..<connectors).map { k in
            .connect(shapeID: Self.connectorID(k), spec: ShapeSpec(kind: "arrow"),
                     from: .bound(Binding(shape: Self.shapeID(2 * k), anchor: .center)),
                     to: .bound(Binding(shape: Self.shapeID(2 * k + 1), anchor: .center)))
        }
    }

    /// Dragger `dragger`'s `n`-th content gesture on a canvas holding `canvas`: of the kind `n` comes to in
    /// its turn, or the next kind that can be planned; nil when none can (its shapes not there yet).
    /// A text edit and an endpoint drag take the dragger's shapes and connectors in turn.
    public func contentGesture(
        _ n: Int, dragger: Int, on canvas: [ShapeID: Shape], width: Double, height: Double, using rng: inout SeededGenerator
    ) -> GesturePlan? {
        let kinds = ContentKind.allCases
        for attempt in 0..<kinds.count {
            switch kinds[(n + dragger + attempt) % kinds.count] {
            case .text:
                let share = shapes(of: dragger)
                guard !share.isEmpty, canvas[share[n / kinds.count % share.count]] != nil else { continue }
                return GesturePlan.textEdit(on: share[n / kinds.count % share.count], rate: rate, steps: gestureSteps, using: &rng)
            case .selection:
                let selection = selection(of: dragger).compactMap { canvas[$0] }
                guard !selection.isEmpty else { continue }
                return GesturePlan.selectionMove(selection, others: sample(canvas, using: &rng), width: width, height: height,
                                                 rate: rate, steps: gestureSteps, using: &rng)
            case .endpoint:
                let mine = connectors(of: dragger)
                guard !mine.isEmpty, let connector = canvas[mine[n / kinds.count % mine.count]] else { continue }
                return GesturePlan.endpoint(connector, others: sample(canvas, using: &rng), width: width, height: height,
                                            rate: rate, steps: gestureSteps, using: &rng)
            }
        }
        return nil
    }

    /// Up to 16 seeded shapes picked at random by index (so a seed picks the same ones in every process,
    /// which a dictionary's order would not).
    private func sample(_ canvas: [ShapeID: Shape], using rng: inout SeededGenerator) -> [Shape] {
        guard shapes > 0 else { return [] }
        return (0..<16).compactMap { _ in canvas[Self.shapeID(Int(rng.next() % UInt64(shapes)))] }
    }
}
