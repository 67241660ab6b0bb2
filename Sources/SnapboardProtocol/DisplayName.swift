/// Presence names are plain text, cleaned once by the server so that every client can show them as they
/// come: no control characters, no bidirectional overrides or isolates (U+202A–U+202E, U+2066–U+2069,
/// which could make a name read backwards across the rest of a line), no zero-width or invisible
/// formatting characters (U+200B–U+200F, U+2060–U+2064, U+FEFF), white space trimmed and runs of it
/// folded, at most 64 characters. Markup is not removed: `<b>` stays `<b>`, and clients show names as
/// text, never as HTML (PROTOCOL P11).
public enum DisplayName {
    public static let maxCharacters = 64

    /// The name as presence shows it; nil when nothing is left.
    public static func clean(_ raw: String) -> String? {
        var out = ""
        var pendingSpace = false
        for scalar in raw.unicodeScalars {
            if isRemoved(scalar) { continue }
            if scalar.properties.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.unicodeScalars.append(" ") }
            pendingSpace = false
            out.unicodeScalars.append(scalar)
        }
        let kept = String(out.prefix(maxCharacters))
        return kept.isEmpty ? nil : kept
    }

    static func isRemoved(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x08, 0x0E...0x1F, 0x7F...0x9F: true      // controls (tab and line breaks count as space)
        case 0x200B...0x200F, 0x2060...0x2064, 0xFEFF: true   // zero-width and invisible formatting, LRM/RLM
        case 0x202A...0x202E, 0x2066...0x2069: true           // bidirectional embeddings, overrides, isolates
        case 0x061C, 0x115F, 0x1160, 0x3164, 0xFFA0: true     // Arabic letter mark, Hangul fillers
        default: false
        }
    }
}
