import ArgumentParser
import Foundation
import SnapboardAuth

/// Who may connect: tokens, the admin token, origins and hosts.
struct AccessOptions: ParsableArguments {
    @Option(help: "Require HS256 tokens signed with this secret, 32 bytes or more (SNAPBOARD_AUTH_SECRET; prefer the variable, which ps does not show).")
    var authSecret: String?

    @Option(help: ArgumentHelp("Require ES256 or RS256 tokens signed with the private key of this PEM public key (SNAPBOARD_AUTH_PUBLIC_KEY).", valueName: "file"))
    var authPublicKey: String?

    @Option(help: "Require tokens whose aud claim names this audience (SNAPBOARD_JWT_AUDIENCE).")
    var jwtAudience: String?

    @Option(help: "Require tokens whose iss claim is this issuer (SNAPBOARD_JWT_ISSUER).")
    var jwtIssuer: String?

    @Option(name: .customLong("admin-token"), help: "Require this bearer token, 32 characters or more, for /metrics, the canvas listing and changes over HTTP (SNAPBOARD_ADMIN_TOKEN).")
    var adminTokenFlag: String?

    @Option(help: "An Origin allowed to open WebSockets besides the server's own pages: https://app.example.com, *.example.com or * (repeatable; SNAPBOARD_ALLOWED_ORIGINS, comma-separated).")
    var allowedOrigin: [String] = []

    @Option(help: "A Host name the server answers: board.example.com or *.example.com (repeatable; SNAPBOARD_ALLOWED_HOSTS, comma-separated). Unset: any, or only loopback names when listening on loopback.")
    var allowedHost: [String] = []

    @Flag(help: "Let /metrics name the busiest canvases (canvas=\"id\" series) (SNAPBOARD_METRICS_CANVAS_NAMES=1).")
    var metricsCanvasNames = ["1", "true", "yes"].contains(env("METRICS_CANVAS_NAMES")?.lowercased() ?? "")

    @Flag(help: "Serve a non-loopback address with no token required (SNAPBOARD_INSECURE_OPEN=1).")
    var insecureOpen = ["1", "true", "yes"].contains(env("INSECURE_OPEN")?.lowercased() ?? "")

    var secret: String? { authSecret ?? env("AUTH_SECRET") }
    var adminToken: String? { adminTokenFlag ?? env("ADMIN_TOKEN") }
    var publicKeyFile: String? { authPublicKey ?? env("AUTH_PUBLIC_KEY") }
    var audience: String? { jwtAudience ?? env("JWT_AUDIENCE") }
    var issuer: String? { jwtIssuer ?? env("JWT_ISSUER") }
    /// The shortest admin token taken: a guess at one of 32 random characters never comes through.
    static let minimumAdminTokenLength = 32
    var requiresTokens: Bool { secret != nil || publicKeyFile != nil }
    var origins: [String] { allowedOrigin.isEmpty ? list(env("ALLOWED_ORIGINS")) : allowedOrigin }
    var hosts: [String] { allowedHost.isEmpty ? list(env("ALLOWED_HOSTS")) : allowedHost }

    /// The verifier for the configured secret and key; nil when neither is given (an open server).
    func verifier() throws -> TokenVerifier? {
        guard requiresTokens else { return nil }
        let pem = try publicKeyFile.map { try String(contentsOfFile: $0, encoding: .utf8) }
        return try TokenVerifier(secret: secret, publicKeyPEM: pem, audience: audience, issuer: issuer)
    }

    /// What is wrong with the admin token or the JWT checks, if anything.
    func check() throws {
        if let adminToken, adminToken.count < Self.minimumAdminTokenLength {
            throw ValidationError("""
                --admin-token (SNAPBOARD_ADMIN_TOKEN) must be at least \(Self.minimumAdminTokenLength) characters, so that it \
                cannot be guessed; make one with: openssl rand -hex 32
                """)
        }
        if !requiresTokens, audience != nil || issuer != nil {
            throw ValidationError("--jwt-audience and --jwt-issuer need --auth-secret or --auth-public-key")
        }
    }

    private func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
