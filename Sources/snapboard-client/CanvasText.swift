import SnapboardClient
import SnapboardCore

/// Draws a replica as text: `+` grid intersections, shapes by the first letter of their kind (upper case
/// when a lease is held), guides as `|` and `-`.
enum CanvasText {
    static func render(_ replica: CanvasReplica, columns: Int, rows: Int) -> String {
        guard replica.width > 0, replica.height > 0 else { return "(no canvas)" }
        let sx = replica.width / Double(columns), sy = replica.height / Double(rows)
        var cells = Array(repeating: Array(repeating: Character(" "), count: columns), count: rows)
        if let grid = replica.grid {
            for x in grid.x.lines.dropFirst().dropLast() {
                for y in grid.y.lines.dropFirst().dropLast() {
                    cells[min(Int(y / sy), rows - 1)][min(Int(x / sx), columns - 1)] = "+"
                }
            }
        }
        for shape in replica.drawingOrder {
            var mark = shape.kind.name.first ?? "?"
            if replica.leases[shape.id] != nil { mark = Character(mark.uppercased()) }
            let contours = shape.contours
            let b = shape.bounds
            let c0 = max(0, Int(b.minX / sx)), c1 = min(columns - 1, Int(b.maxX / sx))
            let r0 = max(0, Int(b.minY / sy)), r1 = min(rows - 1, Int(b.maxY / sy))
            guard c0 <= c1, r0 <= r1 else { continue }
            var drew = false
            for r in r0...r1 {
                for c in c0...c1 {
                    let p = Point(x: (Double(c) + 0.5) * sx, y: (Double(r) + 0.5) * sy)
                    if contours.contains(where: { inside(p, $0) }) {
                        cells[r][c] = mark
                        drew = true
                    }
                }
            }
            // A shape smaller than a cell still shows, at its centre.
            if !drew { cells[min(Int(shape.center.y / sy), rows - 1)][min(Int(shape.center.x / sx), columns - 1)] = mark }
        }
        for guide in replica.guides {
            for t in stride(from: guide.from, through: guide.to, by: guide.axis == .x ? sy : sx) {
                let c = min(Int((guide.axis == .x ? guide.at : t) / sx), columns - 1)
                let r = min(Int((guide.axis == .x ? t : guide.at) / sy), rows - 1)
                if r >= 0, c >= 0 { cells[r][c] = guide.axis == .x ? "|" : "-" }
            }
        }
        let border = "." + String(repeating: "-", count: columns) + "."
        let header = "canvas \(replica.canvas ?? "?") seq \(replica.seq): \(replica.shapes.count) shapes, \(replica.sessions.count) sessions"
        return ([header, border] + cells.map { "|" + String($0) + "|" } + [border]).joined(separator: "\n")
    }

    /// Even-odd point-in-polygon.
    static func inside(_ p: Point, _ polygon: [Point]) -> Bool {
        var result = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[i], b = polygon[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { result.toggle() }
            j = i
        }
        return result
    }
}
