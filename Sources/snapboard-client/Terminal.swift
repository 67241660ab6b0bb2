import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The controlling terminal in raw mode, on the alternate screen, with SGR mouse reporting; `restore()`
/// puts everything back (also on Ctrl-C, which arrives as a key, not a signal, in raw mode).
final class Terminal {
    private var saved = termios()
    private var active = false

    func enter() {
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        cfmakeraw(&raw)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        active = true
        // Alternate screen, hidden cursor, button and drag mouse reports in SGR form.
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h")
    }

    func restore() {
        guard active else { return }
        active = false
        write("\u{1B}[?1006l\u{1B}[?1002l\u{1B}[?1000l\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    }

    func write(_ s: String) {
        var bytes = Array(s.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Columns and rows of the window.
    var size: (columns: Int, rows: Int) {
        var w = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &w) == 0, w.ws_col > 0, w.ws_row > 0 else { return (80, 24) }
        return (Int(w.ws_col), Int(w.ws_row))
    }

    /// Bytes typed within `timeout` seconds (possibly none), or nil once the terminal has gone away
    /// (its window closed, or the tmux session was killed): then the client must exit, not spin.
    func read(timeout: Double) -> [UInt8]? {
        var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&fds, 1, Int32(timeout * 1000)) > 0 else { return [] }
        if fds.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0, fds.revents & Int16(POLLIN) == 0 { return nil }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = Glibc.read(STDIN_FILENO, &buffer, buffer.count)
        return n > 0 ? Array(buffer[0..<n]) : nil
    }
}

/// What the user did, decoded from terminal input.
enum InputEvent: Equatable {
    case key(Character)
    case arrow(dx: Int, dy: Int)
    /// SGR mouse: left button pressed, dragged or released at a 1-based cell.
    case press(column: Int, row: Int)
    case drag(column: Int, row: Int)
    case release(column: Int, row: Int)
    /// The mouse wheel: `up` away from the user, at a 1-based cell.
    case wheel(up: Bool, column: Int, row: Int)
    /// Shift and an arrow key: pan the view.
    case pan(dx: Int, dy: Int)
    /// The Delete key (ESC [ 3 ~).
    case delete
    case interrupt
}

/// Splits raw terminal bytes into events: keys, arrow keys and SGR mouse reports (`ESC [ < b ; x ; y M|m`).
enum InputDecoder {
    static func decode(_ bytes: [UInt8]) -> [InputEvent] {
        var events: [InputEvent] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 3 { events.append(.interrupt); i += 1; continue }
            if b == 0x1B, i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") {
                if bytes[i + 2] == UInt8(ascii: "<") {
                    var j = i + 3
                    while j < bytes.count, bytes[j] != UInt8(ascii: "M"), bytes[j] != UInt8(ascii: "m") { j += 1 }
                    guard j < bytes.count else { break }
                    let fields = String(decoding: bytes[(i + 3)..<j], as: UTF8.self).split(separator: ";").compactMap { Int($0) }
                    if fields.count == 3 {
                        let (button, column, row) = (fields[0], fields[1], fields[2])
                        if button & 64 != 0 {
                            // Wheel reports (buttons 64 and 65) are not clicks; they have no release.
                            if bytes[j] == UInt8(ascii: "M") { events.append(.wheel(up: button & 1 == 0, column: column, row: row)) }
                        } else if bytes[j] == UInt8(ascii: "m") {
                            events.append(.release(column: column, row: row))
                        } else if button & 32 != 0 {
                            events.append(.drag(column: column, row: row))
                        } else if button & 3 == 0 {
                            events.append(.press(column: column, row: row))
                        }
                    }
                    i = j + 1
                    continue
                }
                if i + 3 < bytes.count, bytes[i + 2] == UInt8(ascii: "3"), bytes[i + 3] == UInt8(ascii: "~") {
                    events.append(.delete)
                    i += 4
                    continue
                }
                // Shift+arrow: ESC [ 1 ; 2 A–D.
                if i + 5 < bytes.count, bytes[i + 2] == UInt8(ascii: "1"), bytes[i + 3] == UInt8(ascii: ";"), bytes[i + 4] == UInt8(ascii: "2") {
                    if let (dx, dy) = arrow(bytes[i + 5]) { events.append(.pan(dx: dx, dy: dy)) }
                    i += 6
                    continue
                }
                if let (dx, dy) = arrow(bytes[i + 2]) { events.append(.arrow(dx: dx, dy: dy)) }
                i += 3
                continue
            }
            events.append(.key(Character(UnicodeScalar(b))))
            i += 1
        }
        return events
    }

    /// The direction of an arrow key's final byte (A up, B down, C right, D left).
    private static func arrow(_ byte: UInt8) -> (Int, Int)? {
        switch byte {
        case UInt8(ascii: "A"): (0, -1)
        case UInt8(ascii: "B"): (0, 1)
        case UInt8(ascii: "C"): (1, 0)
        case UInt8(ascii: "D"): (-1, 0)
        default: nil
        }
    }
}
