import Foundation
import SnapboardCore
import SnapboardProtocol

/// A client's copy of a canvas, kept by applying the server's welcome, delta and presence messages.
/// No networking here: an iOS or macOS app can drive it from `URLSessionWebSocketTask`.
public struct CanvasReplica: Sendable {
    /// The seq of the last committed op the replica holds; -1 before the first welcome.
    public private(set) var seq = -1
    /// The run of the canvas's history `seq` belongs to (the welcome's `epoch`), sent back with it to resume.
    public private(set) var epoch: String?
    public private(set) var session: Int?
    public private(set) var canvas: String?
    public private(set) var shapes: [ShapeID: Shape] = [:]
    /// Guides of gestures in progress, as the last delta left them.
    public private(set) var guides: [Guide] = []
    /// Equal gaps of gestures in progress, as the last delta left them.
    public private(set) var gaps: [GapGuide] = []
    public private(set) var sessions: [Int: String] = [:]
    /// Which session holds each shape's gesture lease.
    public private(set) var leases: [ShapeID: Int] = [:]
    /// The canvas's size and grid, from the welcome.
    public private(set) var width = 0.0
    public private(set) var height = 0.0
    public private(set) var grid: IntersectionGrid?
    /// The canvas's layout grid (seed 002), when the welcome announces one.
    public private(set) var layout: LayoutGrid?

    public init() {}

    /// The query parameters that resume from what the replica holds (P16): empty before the first welcome.
    public var resumeQuery: String {
        guard seq >= 0 else { return "" }
        return "since=\(seq)" + (epoch.map { "&epoch=\($0)" } ?? "")
    }

    /// The query parameter naming the revision this replica reads (presence as changes, 1.2).
    public static let revisionQuery = "revision=\(ClientMessage.protocolRevision)"

    /// Shapes bottom to top.
    public var drawingOrder: [Shape] { shapes.values.sorted { ($0.z, $0.id) < ($1.z, $1.id) } }

    /// What a message did to the replica.
    public enum Change: Equatable, Sendable {
        case none
        /// A welcome replaced (or, resumed, kept) the whole canvas.
        case welcomed(resumed: Bool)
        /// A delta changed shapes; `haptics` are for this session.
        case delta(seq: Int, live: Bool, haptics: [Haptic])
        case presence
    }

    /// Applies one message from the server.
    @discardableResult
    public mutating func apply(_ message: JSONValue) -> Change {
        switch message["type"] {
        case .string("welcome")?:
            let resumed = message["resumed"] == .bool(true)
            if !resumed { shapes.removeAll() }
            addShapes(message["shapes"])
            seq = message["seq"].flatMap(Self.int) ?? seq
            if case .string(let e)? = message["epoch"] { epoch = e }
            session = message["session"].flatMap(Self.int)
            if case .string(let c)? = message["canvas"] { canvas = c }
            readGrid(message["grid"])
            readLayout(message["layout"])
            readPresence(message)
            guides = []
            gaps = []
            return .welcomed(resumed: resumed)
        case .string("delta")?:
            if message["cleared"] == .bool(true) { shapes.removeAll() }
            if case .array(let removed)? = message["removed"] { for case .string(let id) in removed { shapes[id] = nil } }
            addShapes(message["shapes"])
            place(message["placed"])
            let live = message["live"] == .bool(true)
            let s = message["seq"].flatMap(Self.int) ?? seq
            seq = max(seq, s)
            var haptics: [Haptic] = []
            guides = []
            gaps = []
            if case .array(let events)? = message["events"] {
                for e in events {
                    if e["type"] == .string("guide"), let g = Self.guide(e) { guides.append(g) }
                    if e["type"] == .string("gap"), let g = Self.gap(e) { gaps.append(g) }
                    if e["type"] == .string("haptic"), case .string(let r)? = e["reason"], let reason = Haptic.Reason(rawValue: r) {
                        haptics.append(Haptic(reason: reason))
                    }
                }
            }
            return .delta(seq: s, live: live, haptics: haptics)
        case .string("presence")?:
            readPresence(message)
            return .presence
        default:
            return .none
        }
    }

    private mutating func addShapes(_ value: JSONValue?) {
        guard case .array(let list)? = value else { return }
        for item in list {
            if let shape = Shape(json: item) { shapes[shape.id] = shape }
        }
    }

    /// A 1.4 live delta's placements, `[id, x, y, w, h, scale, rotation, z]` each, applied to the shapes the
    /// replica holds (P8); an id it does not hold, or an entry of another form, is skipped.
    private mutating func place(_ value: JSONValue?) {
        guard case .array(let list)? = value else { return }
        for case .array(let p) in list {
            guard p.count == 8, case .string(let id) = p[0], var shape = shapes[id] else { continue }
            let n = p.dropFirst().compactMap { if case .number(let x) = $0 { x } else { nil } }
            guard n.count == 7, let z = Int(exactly: n[6]) else { continue }
            shape.center = Point(x: n[0], y: n[1])
            shape.size = Size(width: n[2], height: n[3])
            (shape.scale, shape.rotation, shape.z) = (n[4], n[5], z)
            shapes[id] = shape
        }
    }

    private mutating func readPresence(_ message: JSONValue) {
        if case .array(let list)? = message["sessions"] {
            sessions = [:]
            for s in list {
                if let id = s["session"].flatMap(Self.int), case .string(let name)? = s["name"] { sessions[id] = name }
            }
        } else if let id = message["session"].flatMap(Self.int) {
            // 1.2: a join or a leave is the change alone.
            switch message["event"] {
            case .string("join")?: if case .string(let name)? = message["name"] { sessions[id] = name }
            case .string("leave")?: sessions[id] = nil
            default: break
            }
        }
        if case .object(let map)? = message["leases"] { leases = map.compactMapValues(Self.int) }
    }

    private mutating func readGrid(_ value: JSONValue?) {
        guard let value, case .number(let w)? = value["width"], case .number(let h)? = value["height"] else { return }
        (width, height) = (w, h)
        func spacing(_ v: JSONValue?) -> GridAxis.Spacing? {
            if case .number(let n)? = v?["divisions"] { return .divisions(Int(n)) }
            if case .number(let p)? = v?["pitch"] { return .pitch(p) }
            return nil
        }
        if let x = spacing(value["x"]).flatMap({ GridAxis(length: w, spacing: $0) }),
           let y = spacing(value["y"]).flatMap({ GridAxis(length: h, spacing: $0) }) {
            grid = IntersectionGrid(x: x, y: y)
        }
    }

    /// The layout as the welcome describes it, laid over the whole canvas: rebuilt from its mode, rows or
    /// columns and padding, so the cells are exactly the server's.
    private mutating func readLayout(_ value: JSONValue?) {
        layout = nil
        guard let value, case .string(let mode)? = value["mode"], case .number(let padding)? = value["padding"],
              let rows = value["rows"].flatMap(Self.int), let columns = value["columns"].flatMap(Self.int) else { return }
        let sizing: LayoutGrid.Sizing
        switch mode {
        case "flexible": sizing = .flexible(rows: rows, columns: columns)
        case "squareFromRows": sizing = .squareFromRows(rows)
        case "squareFromColumns": sizing = .squareFromColumns(columns)
        default: return
        }
        layout = LayoutGrid(frame: Rect(x: 0, y: 0, width: width, height: height), padding: padding, sizing: sizing)
    }

    static func int(_ v: JSONValue) -> Int? { if case .number(let n) = v { Int(exactly: n) } else { nil } }

    static func guide(_ e: JSONValue) -> Guide? {
        guard case .string(let a)? = e["axis"], let axis = Axis(rawValue: a), case .number(let at)? = e["at"],
              case .number(let from)? = e["from"], case .number(let to)? = e["to"], case .string(let t)? = e["target"] else { return nil }
        let target: SnapTarget = t == "canvas" ? .canvas : t == "grid" ? .grid : .shape(t)
        return Guide(axis: axis, at: at, from: from, to: to, target: target)
    }

    static func gap(_ e: JSONValue) -> GapGuide? {
        guard case .string(let a)? = e["axis"], let axis = Axis(rawValue: a), case .number(let gap)? = e["gap"],
              case .array(let list)? = e["segments"] else { return nil }
        let segments = list.compactMap { item -> GapGuide.Segment? in
            guard case .number(let from)? = item[0], case .number(let to)? = item[1], case .number(let at)? = item[2] else { return nil }
            return GapGuide.Segment(from: from, to: to, at: at)
        }
        return GapGuide(axis: axis, gap: gap, segments: segments)
    }
}
