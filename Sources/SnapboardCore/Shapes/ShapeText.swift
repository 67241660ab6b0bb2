/// The rules for a shape's text (1.7, P26): a label on any shape, or the content of a `text` or `note`.
public enum ShapeText {
    /// The most UTF-8 bytes a shape's text may hold.
    public static let maxBytes = 4_096

    /// Refuses text over `maxBytes` (`out_of_range`) or holding a control character other than tab and
    /// line feed: C0, DEL and C1 (`bad_text`).
    public static func validate(_ text: String) throws(Rejection) {
        guard text.utf8.count <= maxBytes else { throw Rejection(.outOfRange, "a text holds at most \(maxBytes) UTF-8 bytes") }
        if let bad = text.unicodeScalars.first(where: { !isAllowed($0) }) {
            throw Rejection(.badText, "a text may not hold U+\(String(bad.value, radix: 16, uppercase: true))")
        }
    }

    /// True unless `text` breaks a rule of `validate`.
    public static func isValid(_ text: String) -> Bool {
        text.utf8.count <= maxBytes && text.unicodeScalars.allSatisfy(isAllowed)
    }

    static func isAllowed(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x09, 0x0A: true
        case 0x00...0x1F, 0x7F...0x9F: false
        default: true
        }
    }
}

/// Everything about a shape that a `style`, `text`, `group` or `ungroup` op changes (1.7, P26, P27): what an edit
/// records before and after, for undo.
public struct ShapeLook: Hashable, Sendable {
    public var fill: HSBColor
    public var style: ShapeStyle
    public var text: String
    public var group: String?

    public init(fill: HSBColor, style: ShapeStyle, text: String, group: String? = nil) {
        self.fill = fill
        self.style = style
        self.text = text
        self.group = group
    }

    public init(of shape: Shape) {
        self.init(fill: shape.fill, style: shape.style, text: shape.text, group: shape.group)
    }

    /// True when the fill, style and text are the same, whatever the groups.
    public func sameLooks(as other: ShapeLook) -> Bool {
        fill == other.fill && style == other.style && text == other.text
    }

    public func applied(to shape: Shape) -> Shape {
        var shape = shape
        shape.fill = fill
        shape.style = style
        shape.text = text
        shape.group = group
        return shape
    }
}

/// Group ids (1.7, P27): the server names each group `g` and the seq that made it, so they are 1–64 of the
/// shape id alphabet, and an import's must be too.
public enum ShapeGroup {
    public static func isValid(_ id: String?) -> Bool { id.map(Shape.isValidID) ?? true }
}

/// One shape's look changed by a `style` or `text` op (1.7), with the look it had before.
public struct LookChange: Hashable, Sendable, Codable {
    public var id: ShapeID
    public var look: ShapeLook
    public var before: ShapeLook

    public init(id: ShapeID, look: ShapeLook, before: ShapeLook) {
        self.id = id
        self.look = look
        self.before = before
    }
}
