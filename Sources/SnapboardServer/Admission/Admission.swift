import SnapboardAuth

/// What the access checks decided about one request.
enum Admission {
    /// Go on; with the token's claims when the server requires tokens.
    case admitted(AccessClaims?)
    /// Answer `status` with a JSON error (HTTP) or a bare status (an upgrade), and count it under `reason`.
    case refused(status: Int, reason: String, message: String)
}
