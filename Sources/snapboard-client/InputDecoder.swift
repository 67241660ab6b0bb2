/// Splits raw terminal bytes into events: keys (a UTF-8 character is one key), arrow keys with their modifiers
/// and SGR mouse reports (`ESC [ < b ; x ; y M|m`).
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
                // A modified arrow: ESC [ 1 ; m A–D, where m is 1 plus the modifier bits (2 Shift, 3 Alt, 5 Ctrl).
                if i + 5 < bytes.count, bytes[i + 2] == UInt8(ascii: "1"), bytes[i + 3] == UInt8(ascii: ";"),
                   (UInt8(ascii: "2")...UInt8(ascii: "8")).contains(bytes[i + 4]) {
                    let modifiers = ArrowModifiers(rawValue: Int(bytes[i + 4] - UInt8(ascii: "1")))
                    if let (dx, dy) = arrow(bytes[i + 5]) { events.append(.arrow(dx: dx, dy: dy, modifiers: modifiers)) }
                    i += 6
                    continue
                }
                if let (dx, dy) = arrow(bytes[i + 2]) { events.append(.arrow(dx: dx, dy: dy)) }
                i += 3
                continue
            }
            // A UTF-8 sequence is one key, so the text editor takes "é" as typed (a broken one is dropped).
            if b >= 0xC0 {
                let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
                let end = min(bytes.count, i + length)
                if let s = String(validating: bytes[i..<end], as: UTF8.self), let ch = s.first { events.append(.key(ch)) }
                i = end
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
