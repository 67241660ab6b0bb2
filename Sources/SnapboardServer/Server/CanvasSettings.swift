import SnapboardCore
import SnapboardStore

/// The body of `POST /v1/canvases`: a new canvas's id and settings, each defaulting to the server's
/// (`--width`, `--grid`…). The keys mirror what the welcome and `GET /v1/canvases/{id}` return.
struct CanvasSettings: Decodable {
    var id: String?
    var width: Double?
    var height: Double?
    var grid: Grid?
    var snapping: Snapping?
    var layout: Layout?
    var maxShapes: Int?
    /// False lets shapes hang outside the canvas; true (the default) keeps them inside.
    var bounded: Bool?

    struct Grid: Decodable {
        var x: GridAxis.Spacing?
        var y: GridAxis.Spacing?
    }

    struct Snapping: Decodable {
        var threshold: Double?
        /// The release distance, `threshold` plus the grip margin, as the welcome gives it.
        var release: Double?
        var objects: Bool?
        var grid: Bool?
        var gaps: Bool?
        var angleStep: Double?
        var angleTolerance: Double?
    }

    /// Seed 002's layout grid: `mode` is `flexible` (rows and columns), `squareFromRows` (rows) or
    /// `squareFromColumns` (columns); `padding` is the margin and the gap; `fill` stretches shapes to fill
    /// their cell instead of keeping their aspect ratio.
    struct Layout: Decodable {
        var mode: String
        var rows: Int?
        var columns: Int?
        var padding: Double?
        var fill: Bool?
    }

    /// The canvas config these settings give on top of `defaults`, or why there is none. A canvas may hold
    /// at most `shapeLimit` shapes.
    func config(defaults: CanvasConfig, shapeLimit: Int) -> Result<CanvasConfig, CanvasSettingsError> {
        var c = defaults
        if let width { c.width = width }
        if let height { c.height = height }
        if let x = grid?.x { c.gridX = x }
        if let y = grid?.y { c.gridY = y }
        if let s = snapping {
            if let v = s.threshold { c.snapping.threshold = v }
            if let v = s.release { c.snapping.releaseMargin = v - c.snapping.threshold }
            if let v = s.objects { c.snapping.objects = v }
            if let v = s.grid { c.snapping.grid = v }
            if let v = s.gaps { c.snapping.gaps = v }
            if let v = s.angleStep { c.snapping.angleStep = v }
            if let v = s.angleTolerance { c.snapping.angleTolerance = v }
        }
        if let layout {
            switch (layout.mode, layout.rows, layout.columns) {
            case ("flexible", let r?, let k?): c.layout = .flexible(rows: r, columns: k)
            case ("squareFromRows", let r?, _): c.layout = .squareFromRows(r)
            case ("squareFromColumns", _, let k?): c.layout = .squareFromColumns(k)
            case ("flexible", _, _): return .failure(.init("a flexible layout needs rows and columns"))
            case ("squareFromRows", _, _): return .failure(.init("a squareFromRows layout needs rows"))
            case ("squareFromColumns", _, _): return .failure(.init("a squareFromColumns layout needs columns"))
            default: return .failure(.init("layout mode is flexible, squareFromRows or squareFromColumns"))
            }
            if let p = layout.padding { c.layoutPadding = p }
            if let fill = layout.fill { c.layoutFill = fill }
        }
        if let bounded { c.bounded = bounded }
        if let maxShapes {
            guard (0...shapeLimit).contains(maxShapes) else { return .failure(.init("maxShapes must be 0...\(shapeLimit)")) }
            c.maxShapes = maxShapes
        }
        guard c.width >= 1, c.height >= 1 else { return .failure(.init("width and height must be at least 1")) }
        if c.snapping.releaseMargin < 0 { return .failure(.init("snapping release must be at least the threshold")) }
        if let problem = c.problem { return .failure(.init(problem)) }
        return .success(c)
    }
}

/// Why a request's canvas settings or canvas cannot be taken (HTTP 400).
struct CanvasSettingsError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
