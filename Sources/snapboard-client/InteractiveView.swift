import Foundation
import SnapboardClient
import SnapboardCore
import SnapboardProtocol

/// The full-screen view: the canvas drawn in colour and z-order, with zoom and pan, the mouse for taps,
/// drags and zoom, and keys for the rest. Everything runs on one thread: it alternates between handling
/// server messages and terminal input, and redraws what changed.
final class InteractiveView {
    private let session: CanvasSession
    private let terminal = Terminal()
    private let quiet: Bool
    private var kindIndex = 0
    private var selected: ShapeID?
    /// The shape under the pressed button, where the press was, and whether the gesture has begun: it
    /// begins only once the pointer moves, so a click selects and sends nothing.
    private var dragging: (shape: ShapeID, start: Point, begun: Bool)?
    private var confirmingClear = false
    /// The text editor open in the status line (1.7, P26), and the ids of the `text` ops it sent: a reject of
    /// one closes it and says why.
    private var editor: TextEditor?
    private var editorOps: Set<String> = []
    /// A connector being drawn (1.7, P28): `a` (an arrow) or `A` (a line) on the selected shape starts it at
    /// that shape's centre, and the next click ends it on a shape's centre or at a point of empty space.
    private var connecting: (from: ShapeID, kind: String)?
    /// The shape each op in flight names, so that a refusal can say whose it is; answered ops leave.
    private var targets: [String: ShapeID] = [:]
    private var showHelp = false
    private var flashUntil = Date.distantPast
    /// The last snap felt, for the status line, and when.
    private var snapped: (reason: String, at: Date)?
    private var lastBell = Date.distantPast
    private var notice = ""
    private var dirty = true
    private var lastPing = Date.distantPast
    private var size = (columns: 0, rows: 0)
    /// The visible part of the canvas; nil shows all of it.
    private var view: CanvasText.Viewport?
    private var screen = ScreenWriter()

    /// The bell rings at most this often, however many snaps a drag crosses.
    static let bellInterval = 0.25
    static let zoomStep = 1.5

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
            if var open = editor {
                let action = open.tick(now: Date())
                editor = open
                perform(action, editing: open.shape)
            }
            if Date().timeIntervalSince(lastPing) > 2 {
                session.ping()
                lastPing = Date()
            }
            let now = terminal.size
            if now != size {
                size = now
                screen.invalidate()
                dirty = true
            }
            if dirty || flashUntil > Date() - 0.2 || snapped.map({ Date().timeIntervalSince($0.at) < 2.2 }) == true { draw() }
        }
    }

    private func received(_ m: JSONValue) {
        dirty = true
        guard m["type"] == .string("delta"), case .array(let events)? = m["events"] else {
            let id: String? = if case .string(let id)? = m["id"] { id } else { nil }
            let target = id.flatMap { targets.removeValue(forKey: $0) }
            if m["type"] == .string("reject"), case .string(let code)? = m["code"] {
                if let id, editorOps.contains(id) {
                    // The server refused the edit (someone else holds the shape, or it is locked): nothing is open.
                    editor = nil
                    editorOps = []
                }
                notice = refusal(code, target)
            }
            return
        }
        for event in events where event["type"] == .string("haptic") {
            if case .string(let reason)? = event["reason"] { snapped = (reason, Date()) }
            flashUntil = Date() + 0.15
            if !quiet, Date().timeIntervalSince(lastBell) >= Self.bellInterval {
                terminal.write("\u{07}")
                lastBell = Date()
            }
        }
    }

    /// A refusal in words: who holds a shape, what to do about a lock.
    private func refusal(_ code: String, _ shape: ShapeID?) -> String {
        switch code {
        case "layout_full":
            return "the layout is full: every cell holds a shape"
        case "shape_locked":
            let r = session.replica
            let holder = shape.flatMap { r.leases[$0] }.flatMap { r.sessions[$0] }
            return "\(shape ?? "the shape") is held by \(holder ?? "someone else"): try again when they are done"
        case "locked":
            return "\(shape ?? "the shape") is locked: l unlocks it"
        default:
            return "rejected: \(code)"
        }
    }

    /// Sends `op`, remembering the shape it names for a refusal's words.
    @discardableResult
    private func send(_ op: CanvasOp, naming shape: ShapeID? = nil) -> String {
        let id = session.send(op)
        // Gestures' begins and updates are never answered: forget everything now and then rather than hold them.
        if targets.count > 256 { targets = [:] }
        if let shape { targets[id] = shape }
        return id
    }

    /// Sends what the text editor asked for; an end closes it.
    private func perform(_ action: TextEditor.Action, editing shape: ShapeID) {
        switch action {
        case .none:
            return
        case .update(let text):
            editorOps.insert(send(.text(shape, phase: .update, text: text), naming: shape))
        case .end(let text):
            send(.text(shape, phase: .end, text: text), naming: shape)
            editor = nil
            editorOps = []
        }
        dirty = true
    }

    // MARK: Input

    private var canvasRows: Int { max(1, size.rows - 1) }
    private var viewport: CanvasText.Viewport { view ?? .whole(session.replica) }

    /// The canvas point at the centre of a 1-based terminal cell.
    private func canvasPoint(column: Int, row: Int) -> Point {
        let v = viewport
        return Point(x: v.origin.x + (Double(column) - 0.5) * v.width / Double(max(1, size.columns)),
                     y: v.origin.y + (Double(row) - 0.5) * v.height / Double(canvasRows))
    }

    private func shape(at p: Point) -> Shape? {
        session.replica.drawingOrder.reversed().first { $0.contains(p) }
            ?? session.replica.drawingOrder.reversed().first { $0.bounds.insetBy(dx: -4, dy: -4).contains(p) }
    }

    /// Zooms by `factor` (above 1 zooms in) keeping `anchor` where it is on screen; never past the whole canvas.
    private func zoom(by factor: Double, about anchor: Point) {
        let r = session.replica, v = viewport
        let width = min(r.width, v.width / factor), height = min(r.height, v.height / factor)
        let ratio = width / v.width
        view = clamped(CanvasText.Viewport(origin: Point(x: anchor.x - (anchor.x - v.origin.x) * ratio, y: anchor.y - (anchor.y - v.origin.y) * ratio),
                                           width: width, height: height))
    }

    /// Moves the view by a quarter of itself.
    private func pan(dx: Int, dy: Int) {
        var v = viewport
        v.origin.x += Double(dx) * v.width / 4
        v.origin.y += Double(dy) * v.height / 4
        view = clamped(v)
    }

    private func clamped(_ v: CanvasText.Viewport) -> CanvasText.Viewport? {
        let r = session.replica
        // Zooming back out multiplies by 1.5 what was divided by it: allow for rounding.
        guard v.width < r.width * 0.999 || v.height < r.height * 0.999 else { return nil }
        var v = v
        v.origin.x = min(max(0, v.origin.x), r.width - v.width)
        v.origin.y = min(max(0, v.origin.y), r.height - v.height)
        return v
    }

    /// Handles one event; false means quit.
    private func handle(_ event: InputEvent) -> Bool {
        dirty = true
        if var open = editor {
            // The editor takes every key while it is open; Ctrl-C still quits, committing the draft first.
            switch event {
            case .interrupt:
                perform(.end(open.draft), editing: open.shape)
                session.pump(timeout: 0.2) { session.pending.ops.allSatisfy { !$0.commits } }
                return false
            case .key(let key):
                let action = open.key(key, now: Date())
                editor = open
                perform(action, editing: open.shape)
            case .wheel(let up, let column, let row):
                zoom(by: up ? Self.zoomStep : 1 / Self.zoomStep, about: canvasPoint(column: column, row: row))
            default:
                break
            }
            return true
        }
        // A notice lasts until the next key or click, which may set its own.
        switch event {
        case .key, .arrow, .delete, .press: notice = ""
        default: break
        }
        if confirmingClear {
            confirmingClear = false
            if event == .key("y") { session.send(.clear); selected = nil }
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
        case .key("t"), .key("\r"):
            guard let id = selected, let shape = session.replica.shapes[id] else { notice = "select a shape first"; break }
            editor = TextEditor(shape: id, text: shape.text, now: Date())
            editorOps = [send(.text(id, phase: .begin, text: nil), naming: id)]
        case .key("a"), .key("A"):
            guard let id = selected, let shape = session.replica.shapes[id] else { notice = "select a shape first"; break }
            guard !shape.kind.isConnector else { notice = "a connector joins shapes: select one that is not a connector"; break }
            connecting = (id, event == .key("a") ? "arrow" : "line")
        case .key("\u{1B}"):
            connecting = nil
            notice = ""
        case .key("]"), .key("["), .key("}"), .key("{"):
            guard let id = selected else { notice = "select a shape first"; break }
            let to: StackMove = switch event {
            case .key("]"): .forward
            case .key("["): .backward
            case .key("}"): .front
            default: .back
            }
            send(.order([id], to: to), naming: id)
        case .key("l"):
            guard let id = selected, let shape = session.replica.shapes[id] else { notice = "select a shape first"; break }
            send(.lock([id], locked: !shape.locked), naming: id)
        case .key("c"):
            confirmingClear = true
            notice = "clear the whole canvas? y/n"
        case .key("z"), .key("Z"):
            let v = viewport
            zoom(by: event == .key("z") ? Self.zoomStep : 1 / Self.zoomStep, about: Point(x: v.origin.x + v.width / 2, y: v.origin.y + v.height / 2))
        case .key("0"):
            view = nil
        case .wheel(let up, let column, let row):
            zoom(by: up ? Self.zoomStep : 1 / Self.zoomStep, about: canvasPoint(column: column, row: row))
        case .arrow(let dx, let dy, let modifiers) where modifiers.contains(.control):
            pan(dx: dx, dy: dy)
        case .key("+"), .key("="), .key("-"):
            guard let id = selected else { notice = "select a shape first"; break }
            send(.scale(id, phase: nil, factor: event == .key("-") ? 0.8 : 1.25, anchor: nil), naming: id)
        case .delete, .key("x"), .key("\u{7F}"):
            guard let id = selected else { notice = "select a shape first"; break }
            // The server would refuse it (P25): keep the selection, so that l can unlock it.
            if session.replica.shapes[id]?.locked == true { notice = refusal("locked", id); break }
            send(.delete([id]), naming: id)
            selected = nil
        case .key("u"):
            session.send(.undo)
        case .key("U"):
            session.send(.redo)
        case .key("r"), .key("R"):
            guard let id = selected else { notice = "select a shape first"; break }
            send(.rotate(id, phase: nil, radians: (event == .key("r") ? 1 : -1) * .pi / 12), naming: id)
        case .arrow(let dx, let dy, let modifiers):
            // One grid step along the arrow's axis only (Shift: ten), moved exactly; Alt lets it snap, as on the web page.
            guard let id = selected else { notice = "select a shape first"; break }
            send(session.replica.nudge(id, dx: dx, dy: dy, steps: modifiers.contains(.shift) ? 10 : 1,
                                       snap: modifiers.contains(.alt)), naming: id)
        case .press(let column, let row):
            let p = canvasPoint(column: column, row: row)
            if let start = connecting {
                // The click ends the connector: on a shape's centre, or at the point (the server binds it if it is near one).
                connecting = nil
                let hit = shape(at: p)
                if hit?.id == start.from { notice = "a connector needs two ends: click another shape"; break }
                if hit?.kind.isConnector == true { notice = "a connector cannot end on a connector"; break }
                let to: EndSpec = hit.map { .bound(Binding(shape: $0.id, anchor: .center)) } ?? .at(p)
                send(.connect(shapeID: nil, spec: ShapeSpec(kind: start.kind), from: .bound(Binding(shape: start.from, anchor: .center)), to: to),
                     naming: start.from)
            } else if let hit = shape(at: p) {
                selected = hit.id
                dragging = (hit.id, p, false)
            } else {
                session.send(.snap(at: p, shapeID: nil, spec: ShapeSpec(kind: ShapeKind.names[kindIndex])))
            }
        case .drag(let column, let row), .release(let column, let row):
            guard var drag = dragging else { break }
            let p = canvasPoint(column: column, row: row)
            let ending = if case .release = event { true } else { false }
            let translation = Point(x: p.x - drag.start.x, y: p.y - drag.start.y)
            if !drag.begun, translation != .zero {
                send(.move(drag.shape, phase: .begin, translation: .zero), naming: drag.shape)
                drag.begun = true
            }
            dragging = ending ? nil : drag
            guard drag.begun else { break }
            send(.move(drag.shape, phase: ending ? .end : .update, translation: translation), naming: drag.shape)
        case .key:
            break
        }
        return true
    }

    // MARK: Drawing

    private func draw() {
        dirty = false
        var cells = CanvasText.raster(session.replica, columns: size.columns, rows: canvasRows, view: view, selected: selected,
                                      drafts: editor.map { [$0.shape: $0.draft] } ?? [:])
        if showHelp {
            for (r, line) in Self.help.enumerated() where r < cells.count {
                let text = Array((" " + line).padding(toLength: min(size.columns, 62), withPad: " ", startingAt: 0))
                for (c, ch) in text.enumerated() { cells[r][c] = CanvasText.Cell(character: ch, colour: nil, inverse: true) }
            }
        }
        let flash = flashUntil > Date()
        let line = String(status().prefix(size.columns)).padding(toLength: size.columns, withPad: " ", startingAt: 0)
        terminal.write(screen.update(cells, status: (flash ? "\u{1B}[41;97m" : "\u{1B}[7m") + line, statusRow: size.rows))
    }

    /// The status line: the connection, what snapped, who is dragging, the view and the selection.
    func status() -> String {
        if let editor {
            // The editor owns the status line: the draft's end stays in sight, with a cursor after it.
            let help = " · Enter saves · Esc cancels"
            let room = max(8, size.columns - help.count - editor.shape.count - 8)
            let shown = editor.draft.count > room ? "…" + editor.draft.suffix(room - 1) : Substring(editor.draft)
            return "text \(editor.shape): \(shown)▏" + help
        }
        if let connecting {
            return "\(connecting.kind) from \(connecting.from): click a shape or a point to end it · Esc cancels"
        }
        let r = session.replica
        let connected = session.state == .connected
        let rtt = session.lastRoundTrip.map { String(format: "%.1f ms", $0) } ?? "-"
        // A notice comes early, where a narrow terminal does not cut it off.
        var parts = ["\(r.canvas ?? "?")", "session \(r.session.map(String.init) ?? "-")", "seq \(r.seq)"]
        if !notice.isEmpty { parts.append(notice) }
        parts += ["peers \(connected ? String(max(0, r.sessions.count - 1)) : "-")", "rtt \(rtt)", session.state.rawValue,
                     "kind \(ShapeKind.names[kindIndex])"]
        if let v = view { parts.append(String(format: "zoom %.2gx at %.0f,%.0f", r.width / v.width, v.origin.x, v.origin.y)) }
        if let snapped, Date().timeIntervalSince(snapped.at) < 2 { parts.append("snapped: \(snapped.reason)") }
        let draggers = Set(r.leases.values.filter { $0 != r.session }).compactMap { r.sessions[$0] }.sorted()
        if !draggers.isEmpty { parts.append("dragging: " + draggers.joined(separator: ", ")) }
        if let selected {
            parts.append("selected \(selected)" + (r.shapes[selected]?.locked == true ? " (locked)" : ""))
        }
        if notice.isEmpty { parts.append("? help") }
        return parts.joined(separator: " · ")
    }

    static let help = [
        "Snapboard terminal client",
        "click empty space   snap a new shape (kind: k cycles)",
        "drag a shape        move it; guides show while a snap holds",
        "+ / -               scale the selected shape",
        "r / R               rotate it by 15 degrees",
        "arrows, shift+arrows nudge it 1 or 10 grid steps",
        "alt+arrows          nudge 1 step, snapping to what is near",
        "x, Delete           delete it",
        "t, Enter            edit its text (Enter saves, Esc cancels)",
        "a / A               an arrow / a line from it: click the other end",
        "] / [               bring forward / send backward",
        "} / {               bring to front / send to back",
        "l                   lock or unlock it",
        "u / U               undo / redo your own last change",
        "wheel, z / Z        zoom in / out (0 shows everything)",
        "ctrl+arrows         pan the view",
        "c                   clear the canvas (asks first)",
        "?                   this help     q, Ctrl-C   quit",
    ]
}
