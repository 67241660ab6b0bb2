/// A shape's identifier: 1–64 characters of `[A-Za-z0-9_-]`, chosen by the client or by the canvas.
public typealias ShapeID = String

/// One shape on a canvas. Geometry is kept as an unscaled size plus a transform
/// (centre, uniform scale, rotation), so scaling and rotating never lose precision.
public struct Shape: Hashable, Sendable {
    public var id: ShapeID
    public var kind: ShapeKind
    /// The centre of the shape's frame, in canvas space.
    public var center: Point
    /// The frame before scaling and rotation.
    public var size: Size
    /// The uniform scale applied about the centre.
    public var scale: Double
    /// The rotation about the centre, in radians, normalised to `0..<2π`.
    public var rotation: Double
    public var fill: HSBColor
    public var hatch: Hatch
    /// The stacking order: larger is drawn later, on top.
    public var z: Int
    /// True while the shape refuses moves, scales, rotations and deletes (a `lock` op sets it, 1.6).
    public var locked: Bool
    /// The outline, opacity and font size (1.7, P26).
    public var style: ShapeStyle
    /// The shape's label, or a `text` or `note` shape's content (1.7, P26): at most `ShapeText.maxBytes`.
    public var text: String
    /// The group the shape belongs to (1.7, P27): a click on one member selects them all. Groups are flat.
    public var group: String?
    /// A connector's ends (1.7, P28): each bound to an anchor of another shape, or nil where the end is free.
    /// Always nil on other kinds.
    public var from: Binding?
    public var to: Binding?

    public init(
        id: ShapeID, kind: ShapeKind, center: Point, size: Size, scale: Double = 1, rotation: Double = 0,
        fill: HSBColor, hatch: Hatch = .none, z: Int, locked: Bool = false, style: ShapeStyle = .standard, text: String = "",
        group: String? = nil, from: Binding? = nil, to: Binding? = nil
    ) {
        self.id = id
        self.kind = kind
        self.center = center
        self.size = size
        self.scale = scale
        self.rotation = rotation
        self.fill = fill
        self.hatch = hatch
        self.z = z
        self.locked = locked
        self.style = style
        self.text = text
        self.group = group
        self.from = from
        self.to = to
    }

    /// Maps the shape's local frame (centred on the origin, unscaled) into canvas space.
    public var transform: AffineTransform {
        AffineTransform.translation(center).after(.rotation(rotation)).after(.scale(scale))
    }

    /// True when `id` is 1–64 characters of `[A-Za-z0-9_-]`.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= 64 && bytes.allSatisfy(isIDByte)
    }

    /// True for the bytes allowed in shape and canvas identifiers.
    @inlinable static func isIDByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D
    }
}
