/// Why the canvas refused an operation. The canvas is unchanged whenever one is returned.
public struct Rejection: Error, Hashable, Sendable {
    /// A stable, documented code; the wire form is the raw value.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The shape does not exist (never did, or a `clear` removed it).
        case unknownShape = "unknown_shape"
        /// Another session holds the gesture lease on the shape.
        case shapeLocked = "shape_locked"
        /// An `update` or `end` came without a matching `begin` from the same session.
        case noGesture = "no_gesture"
        /// A position lies outside the canvas.
        case outOfBounds = "out_of_bounds"
        /// A number is NaN or infinite.
        case notFinite = "not_finite"
        /// The canvas holds its maximum number of shapes.
        case canvasFull = "canvas_full"
        /// Every cell of the canvas's layout grid holds a shape: a tap has nowhere to go.
        case layoutFull = "layout_full"
        /// A shape description is invalid: unknown kind, parameter or size out of range, bad colour.
        case badShape = "bad_shape"
        /// A client-chosen shape id is malformed or already taken.
        case badShapeID = "bad_shape_id"
        /// A gesture parameter is out of its range, such as a scale factor that is not positive.
        case outOfRange = "out_of_range"
        /// The client has no change left that an `undo` can revert.
        case nothingToUndo = "nothing_to_undo"
        /// The client has no undone change that a `redo` can re-apply.
        case nothingToRedo = "nothing_to_redo"
        /// Only in an undo's or redo's `skipped`: someone else changed, removed or re-created the shape since.
        case changedSince = "changed_since"
        /// The shape is locked (1.6): it refuses moves, scales, rotations and deletes until a `lock` op
        /// unlocks it. Also in an undo's or redo's `skipped`, for a shape it would move or remove.
        case locked = "locked"
        /// A text holds a control character other than tab and line feed (1.7, P26).
        case badText = "bad_text"
        /// A colour that is neither `#rrggbb` nor a palette name, or a `style` op that sets nothing (1.7, P26).
        case badStyle = "bad_style"
    }

    public var code: Code
    /// A human-readable explanation; not stable, for logs and developers.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
