import ArgumentParser
import Foundation
import SnapboardCore

/// A scripted session on one canvas, printed step by step: what `make run` shows until the server lands.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Plays a short scripted session (taps, a snapping drag, a pinch, a twist) and draws the canvas.")

    @Option(help: "Columns of the drawing.")
    var columns = 64

    @Option(help: "Rows of the drawing.")
    var rows = 24

    func run() throws {
        var config = CanvasConfig()
        config.width = 640
        config.height = 480
        config.gridX = .divisions(8)
        config.gridY = .divisions(6)
        var canvas = try Canvas(id: "demo", config: config)
        let ann = Participant(id: "ann"), ben = Participant(id: "ben")
        var square = ShapeSpec(kind: "roundedRect")
        (square.width, square.height) = (100, 100)
        var star = ShapeSpec(kind: "star")
        (star.width, star.height) = (120, 120)
        var card = ShapeSpec(kind: "oval")
        (card.width, card.height) = (100, 60)
        let script: [(String, CanvasOp, Participant)] = [
            ("ann taps near (170, 150)", .snap(at: Point(x: 170, y: 150), shapeID: "box", spec: square), ann),
            ("ben taps near (470, 330)", .snap(at: Point(x: 470, y: 330), shapeID: "star", spec: star), ben),
            ("ann taps (600, 20): clamped to the outermost intersection", .snap(at: Point(x: 600, y: 20), shapeID: nil, spec: ShapeSpec()), ann),
            ("ben taps near (330, 400) for an oval", .snap(at: Point(x: 330, y: 400), shapeID: "oval", spec: card), ben),
            ("ben starts dragging the oval", .move("oval", phase: .begin, translation: .zero), ben),
            ("ann tries to drag it too", .move("oval", phase: .begin, translation: .zero), ann),
            ("ben drags it up-left: its left edge comes 3 short of the box's right edge", .move("oval", phase: .update, translation: Point(x: -57, y: -233)), ben),
            ("ben wiggles 5 units back: 8 from the edge, the grip holds", .move("oval", phase: .update, translation: Point(x: -52, y: -231)), ben),
            ("ben lets go", .move("oval", phase: .end, translation: Point(x: -52, y: -231)), ben),
            ("ann pinches the box ×1.5 about its top-left corner", .scale("box", phase: nil, factor: 1.5, anchor: Point(x: 110, y: 110)), ann),
            ("ann twists the box by 13°: it snaps to 15°", .rotate("box", phase: nil, radians: 13 * .pi / 180), ann),
        ]
        for (title, op, who) in script {
            print("▸ \(title)")
            do {
                let outcome = try canvas.apply(op, by: who)
                describe(outcome, for: who)
                if !outcome.guides.isEmpty { print(draw(canvas, guides: outcome.guides)) }
            } catch {
                print("  rejected \(error.code.rawValue): \(error.message)")
            }
        }
        print(draw(canvas, guides: []))
    }

    private func describe(_ outcome: Outcome, for who: Participant) {
        for shape in outcome.changed {
            print(String(format: "  %@ %@ at (%.1f, %.1f) scale %.2f rotation %.1f° z %d", shape.kind.name, shape.id,
                         shape.center.x, shape.center.y, shape.scale, shape.rotation * 180 / .pi, shape.z))
        }
        for guide in outcome.guides {
            print(String(format: "  guide %@ = %.1f from %.1f to %.1f (target %@)", guide.axis.rawValue, guide.at, guide.from, guide.to,
                         guide.target.wireValue))
        }
        for haptic in outcome.haptics { print("  haptic \(haptic.style) (\(haptic.reason.rawValue)) → \(who.id) only") }
        if let commit = outcome.commit { print("  committed as seq \(outcome.seq): \(commit.kindName)") }
    }

    /// The canvas in characters: `+` grid intersections, shapes by the first letter of their id, guides as `|` and `-`.
    private func draw(_ canvas: Canvas, guides: [Guide]) -> String {
        let sx = canvas.config.width / Double(columns), sy = canvas.config.height / Double(rows)
        var cells = Array(repeating: Array(repeating: Character(" "), count: columns), count: rows)
        for x in canvas.grid.x.lines.dropFirst().dropLast() {
            for y in canvas.grid.y.lines.dropFirst().dropLast() {
                let c = min(Int(x / sx), columns - 1), r = min(Int(y / sy), rows - 1)
                cells[r][c] = "+"
            }
        }
        for shape in canvas.shapes {
            let mark = shape.id.first ?? "?"
            for r in 0..<rows {
                for c in 0..<columns {
                    let p = Point(x: (Double(c) + 0.5) * sx, y: (Double(r) + 0.5) * sy)
                    if shape.contains(p) { cells[r][c] = mark }
                }
            }
        }
        for guide in guides {
            for t in stride(from: guide.from, through: guide.to, by: guide.axis == .x ? sy : sx) {
                let c = min(Int((guide.axis == .x ? guide.at : t) / sx), columns - 1)
                let r = min(Int((guide.axis == .x ? t : guide.at) / sy), rows - 1)
                if r >= 0, c >= 0 { cells[r][c] = guide.axis == .x ? "|" : "-" }
            }
        }
        let border = "  ." + String(repeating: "-", count: columns) + "."
        return ([border] + cells.map { "  |" + String($0) + "|" } + [border]).joined(separator: "\n")
    }
}

extension Outcome {
    var guides: [Guide] { events.compactMap { if case .guide(let g) = $0 { g } else { nil } } }
    var haptics: [Haptic] { events.compactMap(\.haptic) }
}

extension CommittedOp {
    var kindName: String {
        switch self {
        case .create: "create"
        case .place: "place"
        case .clear: "clear"
        case .remove: "remove"
        case .restore: "restore"
        case .order: "order"
        case .lock: "lock"
        case .edit: "edit"
        case .reconnect: "reconnect"
        case .arrange: "arrange"
        }
    }
}
