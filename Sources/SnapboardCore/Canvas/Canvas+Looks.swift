/// Operations on how shapes look (1.7, P26): `style` restyles shapes, `text` edits one shape's text under
/// a lease, as a gesture does, without moving or restacking it.
extension Canvas {
    /// Restyles `ids`, all or none: each must exist (`unknown_shape`), be unlocked (`locked`) and be under
    /// no gesture or text edit (`shape_locked`). Only the shapes whose look changes are committed; when
    /// none does, nothing commits (`unchanged`).
    mutating func style(_ ids: [ShapeID], _ patch: StylePatch) throws(Rejection) -> Outcome {
        guard !patch.isEmpty else { throw Rejection(.badStyle, "a style op sets at least one of fill, stroke, strokeWidth, opacity, fontSize") }
        try patch.validate()
        var changes: [LookChange] = []
        for shape in try named(ids, "style") {
            guard !shape.locked else { throw Rejection(.locked, "shape \(shape.id) is locked") }
            let before = ShapeLook(of: shape)
            var look = before
            (look.fill, look.style) = patch.applied(to: shape)
            if look != before { changes.append(LookChange(id: shape.id, look: look, before: before)) }
        }
        guard !changes.isEmpty else { return unchangedOutcome }
        return commit(.edit(changes))
    }

    /// Applies one phase of a text edit (see `CanvasOp.text`).
    mutating func text(_ id: ShapeID, _ phase: GesturePhase?, _ text: String?, by participant: Participant) throws(Rejection) -> Outcome {
        if let text { try ShapeText.validate(text) }
        if phase == nil, text == nil { throw Rejection(.badText, "a text op without a phase gives its text") }
        return try gesture(id, .text, phase, participant, identity: false) { _, g in
            if let text { g.draft = text }
            return Outcome()
        }
    }

    /// Commits a text edit's draft, or nothing when it is the committed text.
    mutating func commitText(_ g: Gesture) -> Outcome {
        let shape = store.shape(inSlot: g.slot)
        guard let draft = g.draft, draft != shape.text else { return uncommitted(g) }
        let before = ShapeLook(of: shape)
        var look = before
        look.text = draft
        return commit(.edit([LookChange(id: shape.id, look: look, before: before)]))
    }
}
