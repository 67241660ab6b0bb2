import ArgumentParser
import Foundation
import SnapboardAuth

/// Mints an HS256 access token, for development and scripts.
struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints an access token for a canvas (development and scripts).",
        discussion: "HS256, signed with --secret or SNAPBOARD_AUTH_SECRET (the secret the server was started with), or ES256/RS256 with --private-key.")

    @Option(help: "The canvas id, or a prefix ending in * (team-42-* grants every canvas starting team-42-; * grants all).")
    var canvas: String

    @Option(help: "editor or viewer.")
    var role = "editor"

    @Option(help: "How long the token lasts: 90s, 15m, 1h, 7d, or seconds.")
    var ttl = "1h"

    @Option(help: "Who the token is for (the presence identity, the token's sub).")
    var sub = "dev"

    @Option(help: "The display name others see (the token's name).")
    var name: String?

    @Option(help: "The audience the token is for (its aud), for a server started with --jwt-audience.")
    var audience: String?

    @Option(help: "Who issues the token (its iss), for a server started with --jwt-issuer.")
    var issuer: String?

    @Option(help: "The HS256 secret (SNAPBOARD_AUTH_SECRET).")
    var secret: String?

    @Option(help: ArgumentHelp("Sign ES256 or RS256 with this PEM private key instead.", valueName: "file"))
    var privateKey: String?

    func validate() throws {
        guard AccessRole(rawValue: role) != nil else { throw ValidationError("--role is editor or viewer") }
        guard let seconds = Self.seconds(ttl) else { throw ValidationError("--ttl is a duration like 90s, 15m, 1h or 7d") }
        // Servers refuse an expiry past the end of 9999 as malformed.
        guard AccessClaims.numericDates.contains((Date().timeIntervalSince1970 + seconds).rounded(.down)) else {
            throw ValidationError("--ttl reaches past the year 9999")
        }
        guard privateKey != nil || secret ?? env("AUTH_SECRET") != nil else {
            throw ValidationError("give --secret, set SNAPBOARD_AUTH_SECRET, or give --private-key")
        }
    }

    func run() throws {
        let signer = try privateKey.map { try TokenSigner(privateKeyPEM: String(contentsOfFile: $0, encoding: .utf8)) }
            ?? TokenSigner(secret: secret ?? env("AUTH_SECRET") ?? "")
        let expires = Date().timeIntervalSince1970 + (Self.seconds(ttl) ?? 3600)
        let now = Date().timeIntervalSince1970.rounded(.down)
        print(try signer.sign(AccessClaims(subject: sub, canvas: canvas, role: AccessRole(rawValue: role) ?? .editor, expires: expires, name: name,
                                           issuedAt: now, audience: audience, issuer: issuer)))
    }

    /// `90s`, `15m`, `1h`, `7d` or a number of seconds.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let unit = text.last.flatMap({ units[$0] }), let n = Double(text.dropLast()), n > 0 { return n * unit }
        return Double(text).flatMap { $0 > 0 ? $0 : nil }
    }
}
