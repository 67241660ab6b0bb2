/// A canvas's fixed settings: its size, grids, snapping and limits.
public struct CanvasConfig: Hashable, Sendable, Codable {
    public var width: Double = 1024
    public var height: Double = 768
    /// Vertical gridlines: `.divisions(n)` or `.pitch(p)`.
    public var gridX: GridAxis.Spacing = .pitch(32)
    /// Horizontal gridlines.
    public var gridY: GridAxis.Spacing = .pitch(32)
    /// When set, taps and finished moves fit shapes to the layout cell under their centre (or the nearest
    /// free one) instead of snapping to grid intersections.
    public var layout: LayoutGrid.Sizing? = nil
    /// The layout's margin and gap.
    public var layoutPadding: Double = 10
    /// True when shapes fitted to a layout cell stretch to fill it; false keeps their aspect ratio.
    public var layoutFill = false
    /// True when placements keep every shape's bounds inside the canvas (translated back in, never
    /// resized); false lets shapes hang outside, their centre still on the canvas.
    public var bounded = true
    public var snapping = SnapSettings()
    public var maxShapes: Int = 100_000
    /// The smallest and largest a shape's longer side may be, after scaling.
    public var minSize: Double = 4
    public var maxSize: Double = 4_096

    public init() {}

    enum CodingKeys: String, CodingKey {
        case width, height, gridX, gridY, layout, layoutPadding, layoutFill, bounded, snapping, maxShapes, minSize, maxSize
    }

    /// Configs stored before 1.5 have no `layoutFill` or `bounded`: they take their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        width = try c.decode(Double.self, forKey: .width)
        height = try c.decode(Double.self, forKey: .height)
        gridX = try c.decode(GridAxis.Spacing.self, forKey: .gridX)
        gridY = try c.decode(GridAxis.Spacing.self, forKey: .gridY)
        layout = try c.decodeIfPresent(LayoutGrid.Sizing.self, forKey: .layout)
        layoutPadding = try c.decode(Double.self, forKey: .layoutPadding)
        layoutFill = try c.decodeIfPresent(Bool.self, forKey: .layoutFill) ?? false
        bounded = try c.decodeIfPresent(Bool.self, forKey: .bounded) ?? true
        snapping = try c.decode(SnapSettings.self, forKey: .snapping)
        maxShapes = try c.decode(Int.self, forKey: .maxShapes)
        minSize = try c.decode(Double.self, forKey: .minSize)
        maxSize = try c.decode(Double.self, forKey: .maxSize)
    }

    /// The intersection grid, or nil when the config is invalid.
    public var grid: IntersectionGrid? {
        guard let x = GridAxis(length: width, spacing: gridX), let y = GridAxis(length: height, spacing: gridY) else { return nil }
        return IntersectionGrid(x: x, y: y)
    }

    /// The layout grid over the whole canvas, when `layout` is set and valid.
    public var layoutGrid: LayoutGrid? {
        layout.flatMap { LayoutGrid(frame: Rect(x: 0, y: 0, width: width, height: height), padding: layoutPadding, sizing: $0) }
    }

    /// Why the config cannot make a canvas, or nil when it can. The ranges: width and height 1…1,000,000;
    /// grid divisions 2…10,000 or a pitch that leaves 1…100,000 interior lines; layout rows and columns
    /// 1…10,000 with a padding of 0…1,000,000 that leaves a whole cell; snapping as `SnapSettings.isValid`;
    /// maxShapes 0…1,000,000; 0 < minSize ≤ maxSize ≤ 1,000,000. Every number finite.
    public var problem: String? {
        guard width.isFinite, height.isFinite, width >= 1, height >= 1, width <= Canvas.maxLength, height <= Canvas.maxLength else {
            return "width and height must be in 1...1000000"
        }
        for spacing in [gridX, gridY] {
            if case .divisions(let n) = spacing, n > Canvas.maxDivisions { return "at most \(Canvas.maxDivisions) grid divisions per axis" }
        }
        guard grid != nil else { return "grid spacing must leave at least one interior line on each axis" }
        guard layoutPadding.isFinite, layoutPadding >= 0, layoutPadding <= Canvas.maxLength else { return "layout padding must be in 0...1000000" }
        if layout != nil, layoutGrid == nil { return "layout leaves no whole cell" }
        guard snapping.isValid else { return "snapping settings out of range" }
        guard maxShapes >= 0, maxShapes <= 1_000_000 else { return "maxShapes must be in 0...1000000" }
        guard minSize.isFinite, maxSize.isFinite, minSize > 0, minSize <= maxSize, maxSize <= Canvas.maxLength else {
            return "sizes must satisfy 0 < minSize <= maxSize <= 1000000"
        }
        return nil
    }
}
