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
