import Foundation
import SnapboardClient
import SnapboardCore
import SnapboardProtocol

/// The full-screen view: the canvas drawn in colour and z-order, scaled to the terminal, with the mouse
/// for taps and drags and keys for the rest. Everything runs on one thread: it alternates between
/// handling server messages and terminal input, and redraws when something changed.
final class InteractiveView {
    private let session: CanvasSession
    private let terminal = Terminal()
    private let quiet: Bool
    private var kindIndex = 0
    private var selected: ShapeID?
    private var dragging: (shape: ShapeID, start: Point)?
    private var confirmingClear = false
    private var showHelp = false
    private var flashUntil = Date.distantPast
    private var notice = ""
    private var dirty = true
    private var lastPing = Date.distantPast
    private var lastSize = (columns: 0, rows: 0)

    init(session: CanvasSession, quiet: Bool) {
        self.session = session
        self.quiet = quiet
    }

    func run() {
        terminal.enter()
        defer { terminal.restore() }
        session.onMessage = { [unowned self] m in received(m) }
        session.onState = { [unowned self] _ in dirty = true }
        while true {
            session.pump(timeout: 0.005)
            for event in InputDecoder.decode(terminal.read(timeout: 0.015)) {
                if !handle(event) { return }
            }
            if Date().timeIntervalSince(lastPing) > 2 {
                session.ping()
                lastPing = Date()
            }
            let size = terminal.size
            if size != lastSize { dirty = true }
            if dirty || flashUntil > Date() - 0.2 { draw(size) }
        }
    }

    private func received(_ m: JSONValue) {
        dirty = true
        guard m["type"] == .string("delta"), case .array(let events)? = m["events"] else {
            if m["type"] == .string("reject"), case .string(let code)? = m["code"] { notice = "rejected: \(code)" }
            return
        }
        if events.contains(where: { $0["type"] == .string("haptic") }) {
            flashUntil = Date() + 0.15
            if !quiet { terminal.write("\u{07}") }
        }
    }

    // MARK: Input

    private var canvasRows: Int { max(1, lastSize.rows - 1) }

    /// The canvas point at the centre of a 1-based terminal cell.
    private func canvasPoint(column: Int, row: Int) -> Point {
        let r = session.replica
        return Point(x: (Double(column) - 0.5) * r.width / Double(max(1, lastSize.columns)),
                     y: (Double(row) - 0.5) * r.height / Double(canvasRows))
    }

    private func shape(at p: Point) -> Shape? {
        session.replica.drawingOrder.reversed().first { s in s.bounds.contains(p) && s.contours.contains { CanvasText.inside(p, $0) } }
            ?? session.replica.drawingOrder.reversed().first { $0.bounds.insetBy(dx: -4, dy: -4).contains(p) }
    }

    /// Handles one event; false means quit.
    private func handle(_ event: InputEvent) -> Bool {
        dirty = true
        if confirmingClear {
            confirmingClear = false
            if event == .key("y") { session.send(op: "clear", commits: true); selected = nil }
            notice = ""
            return true
        }
        switch event {
        case .interrupt, .key("q"):
            return false
        case .key("?"):
            showHelp.toggle()
        case .key("k"):
            kindIndex = (kindIndex + 1) % ShapeKind.names.count
        case .key("c"):
            confirmingClear = true
            notice = "clear the whole canvas? y/n"
        case .key("+"), .key("="), .key("-"):
            guard let id = selected else { notice = "select a shape first"; break }
            session.send(op: "scale", #""shape":"\#(id)","factor":\#(event == .key("-") ? 0.8 : 1.25)"#, commits: true)
        case .key("r"), .key("R"):
            guard let id = selected else { notice = "select a shape first"; break }
            session.send(op: "rotate", #""shape":"\#(id)","radians":\#(event == .key("r") ? 0.2617993877991494 : -0.2617993877991494)"#, commits: true)
        case .arrow(let dx, let dy):
            guard let id = selected else { notice = "select a shape first"; break }
            let r = session.replica
            let step = (x: r.width / Double(max(1, lastSize.columns)), y: r.height / Double(canvasRows))
            session.send(op: "move", #""shape":"\#(id)","dx":\#(Double(dx) * step.x),"dy":\#(Double(dy) * step.y)"#, commits: true)
        case .press(let column, let row):
            let p = canvasPoint(column: column, row: row)
            if let hit = shape(at: p) {
                selected = hit.id
                dragging = (hit.id, p)
                session.send(op: "move", #""shape":"\#(hit.id)","phase":"begin""#, commits: false)
            } else {
                let kind = ShapeKind.names[kindIndex]
                session.send(op: "snap", #""x":\#(p.x),"y":\#(p.y),"shape":{"kind":"\#(kind)"}"#, commits: true)
            }
        case .drag(let column, let row):
            guard let drag = dragging else { break }
            let p = canvasPoint(column: column, row: row)
            session.send(op: "move", #""shape":"\#(drag.shape)","phase":"update","dx":\#(p.x - drag.start.x),"dy":\#(p.y - drag.start.y)"#, commits: false)
        case .release(let column, let row):
            guard let drag = dragging else { break }
            dragging = nil
            let p = canvasPoint(column: column, row: row)
            session.send(op: "move", #""shape":"\#(drag.shape)","phase":"end","dx":\#(p.x - drag.start.x),"dy":\#(p.y - drag.start.y)"#, commits: true)
        case .key:
            break
        }
        return true
    }

    // MARK: Drawing

    private func draw(_ size: (columns: Int, rows: Int)) {
        lastSize = size
        dirty = false
        let r = session.replica
        let rows = canvasRows, columns = size.columns
        var cells = Array(repeating: Array(repeating: (Character(" "), 0 as UInt32), count: columns), count: rows)
        if r.width > 0, r.height > 0 {
            let sx = r.width / Double(columns), sy = r.height / Double(rows)
            if let grid = r.grid {
                for x in grid.x.lines.dropFirst().dropLast() {
                    for y in grid.y.lines.dropFirst().dropLast() {
                        cells[min(Int(y / sy), rows - 1)][min(Int(x / sx), columns - 1)] = ("+", 0x5A5A5A)
                    }
                }
            }
            for shape in r.drawingOrder {
                var mark = shape.kind.name.first ?? "?"
                if r.leases[shape.id] != nil || shape.id == selected { mark = Character(mark.uppercased()) }
                let colour = Self.rgb(shape.fill)
                let b = shape.bounds, contours = shape.contours
                let c0 = max(0, Int(b.minX / sx)), c1 = min(columns - 1, Int(b.maxX / sx))
                let r0 = max(0, Int(b.minY / sy)), r1 = min(rows - 1, Int(b.maxY / sy))
                var drew = false
                if c0 <= c1, r0 <= r1 {
                    for row in r0...r1 {
                        for column in c0...c1 {
                            let p = Point(x: (Double(column) + 0.5) * sx, y: (Double(row) + 0.5) * sy)
                            if contours.contains(where: { CanvasText.inside(p, $0) }) {
                                cells[row][column] = (mark, colour)
                                drew = true
                            }
                        }
                    }
                }
                if !drew {
                    cells[max(0, min(Int(shape.center.y / sy), rows - 1))][max(0, min(Int(shape.center.x / sx), columns - 1))] = (mark, colour)
                }
            }
            for guide in r.guides {
                for t in stride(from: guide.from, through: guide.to, by: guide.axis == .x ? sy : sx) {
                    let column = min(Int((guide.axis == .x ? guide.at : t) / sx), columns - 1)
                    let row = min(Int((guide.axis == .x ? t : guide.at) / sy), rows - 1)
                    if row >= 0, column >= 0 { cells[row][column] = (guide.axis == .x ? "|" : "-", 0xFFD700) }
                }
            }
        }
        var out = "\u{1B}[H"
        for row in cells {
            var colour: UInt32 = 0xFFFFFFFF
            for (ch, c) in row {
                if c != colour {
                    colour = c
                    out += c == 0 ? "\u{1B}[0m" : "\u{1B}[38;2;\((c >> 16) & 255);\((c >> 8) & 255);\(c & 255)m"
                }
                out.append(ch)
            }
            out += "\u{1B}[0m\r\n"
        }
        if showHelp {
            out += "\u{1B}[H"
            for line in Self.help { out += "\u{1B}[7m " + line.padding(toLength: min(columns - 2, 60), withPad: " ", startingAt: 0) + " \u{1B}[0m\r\n" }
        }
        let rtt = session.lastRoundTrip.map { String(format: "%.1f ms", $0) } ?? "-"
        var status = "\(r.canvas ?? "?") · session \(r.session.map(String.init) ?? "-") · seq \(r.seq) · peers \(max(0, r.sessions.count - 1))"
            + " · rtt \(rtt) · \(session.state) · kind \(ShapeKind.names[kindIndex])"
            + (selected.map { " · selected \($0)" } ?? "") + (notice.isEmpty ? " · ? help" : " · \(notice)")
        status = String(status.prefix(columns)).padding(toLength: columns, withPad: " ", startingAt: 0)
        let flash = flashUntil > Date()
        out += "\u{1B}[\(size.rows);1H" + (flash ? "\u{1B}[41;97m" : "\u{1B}[7m") + status + "\u{1B}[0m"
        terminal.write(out)
    }

    static let help = [
        "Snapboard terminal client",
        "click empty space   snap a new shape (kind: k cycles)",
        "drag a shape        move it; guides show while a snap holds",
        "+ / -               scale the selected shape",
        "r / R               rotate it by 15 degrees",
        "arrow keys          nudge it",
        "c                   clear the canvas (asks first)",
        "?                   this help     q, Ctrl-C   quit",
    ]

    /// An HSB fill as 0xRRGGBB.
    static func rgb(_ fill: HSBColor) -> UInt32 {
        let h = fill.h * 6, s = fill.s, v = fill.b
        let i = Int(h) % 6, f = h - Double(Int(h))
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        let (r, g, b): (Double, Double, Double) = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]
        return UInt32(r * 255) << 16 | UInt32(g * 255) << 8 | UInt32(b * 255)
    }
}
