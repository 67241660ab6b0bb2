import SnapboardAuth

/// What the access checks decided about one request.
enum Admission {
    /// Go on; with the token's claims when the server requires tokens.
    case admitted(AccessClaims?)
    /// Answer `status` with a JSON error (an upgrade's refusal has one too), and count it under `label`.
    /// `reason` is the body's stable `"reason"` where it has one: a token's problem (`TokenError.reason`),
    /// or `origin` and `host` for a 403.
    case refused(status: Int, label: String, reason: String?, message: String)
}
