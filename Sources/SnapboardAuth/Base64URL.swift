import Foundation

/// Base64url without padding (RFC 4648 §5), as JWS uses it, through Foundation's base64.
enum Base64URL {
    static func decode(_ part: Substring.UTF8View) -> [UInt8]? {
        var text = String(decoding: part.map { c in
            c == UInt8(ascii: "-") ? UInt8(ascii: "+") : c == UInt8(ascii: "_") ? UInt8(ascii: "/") : c
        }, as: UTF8.self)
        // JWS never pads; a padded or otherwise non-canonical part is refused by the check below.
        guard !text.contains("=") else { return nil }
        text += String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        return Data(base64Encoded: text).map(Array.init)
    }

    static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
