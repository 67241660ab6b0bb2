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
            guard let input = terminal.read(timeout: 0.015) else { return }
            for event in InputDecoder.decode(input) {
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
        session.replica.drawingOrder.reversed().first { $0.contains(p) }
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
        let cells = CanvasText.raster(r, columns: columns, rows: rows, selected: selected)
        var out = "\u{1B}[H"
        for row in cells {
            var colour: UInt32?? = .none
            for cell in row {
                if colour != .some(cell.colour) {
                    colour = .some(cell.colour)
                    if let c = cell.colour { out += "\u{1B}[38;2;\((c >> 16) & 255);\((c >> 8) & 255);\(c & 255)m" } else { out += "\u{1B}[0m" }
                }
                out.append(cell.character)
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
}
