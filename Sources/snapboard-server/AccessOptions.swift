import ArgumentParser
import Foundation
import SnapboardAuth

/// Who may connect: tokens, the admin token, origins and hosts.
struct AccessOptions: ParsableArguments {
    @Option(help: "Require HS256 tokens signed with this secret, 32 bytes or more (SNAPBOARD_AUTH_SECRET; prefer the variable, which ps does not show).")
    var authSecret: String?

    @Option(help: ArgumentHelp("Require ES256 or RS256 tokens signed with the private key of this PEM public key (SNAPBOARD_AUTH_PUBLIC_KEY).", valueName: "file"))
    var authPublicKey: String?

    @Option(name: .customLong("admin-token"), help: "Require this bearer token for /metrics, the canvas listing and changes over HTTP (SNAPBOARD_ADMIN_TOKEN).")
    var adminTokenFlag: String?

    @Option(help: "An Origin allowed to open WebSockets besides the server's own pages: https://app.example.com, *.example.com or * (repeatable; SNAPBOARD_ALLOWED_ORIGINS, comma-separated).")
    var allowedOrigin: [String] = []

    @Option(help: "A Host name the server answers: board.example.com or *.example.com (repeatable; SNAPBOARD_ALLOWED_HOSTS, comma-separated). Unset: any, or only loopback names when listening on loopback.")
    var allowedHost: [String] = []

    @Flag(help: "Serve a non-loopback address with no token required (SNAPBOARD_INSECURE_OPEN=1).")
    var insecureOpen = ["1", "true", "yes"].contains(env("INSECURE_OPEN")?.lowercased() ?? "")

    var secret: String? { authSecret ?? env("AUTH_SECRET") }
    var adminToken: String? { adminTokenFlag ?? env("ADMIN_TOKEN") }
    var publicKeyFile: String? { authPublicKey ?? env("AUTH_PUBLIC_KEY") }
    var requiresTokens: Bool { secret != nil || publicKeyFile != nil }
    var origins: [String] { allowedOrigin.isEmpty ? list(env("ALLOWED_ORIGINS")) : allowedOrigin }
    var hosts: [String] { allowedHost.isEmpty ? list(env("ALLOWED_HOSTS")) : allowedHost }

    /// The verifier for the configured secret and key; nil when neither is given (an open server).
    func verifier() throws -> TokenVerifier? {
        guard requiresTokens else { return nil }
        let pem = try publicKeyFile.map { try String(contentsOfFile: $0, encoding: .utf8) }
        return try TokenVerifier(secret: secret, publicKeyPEM: pem)
    }

    private func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
