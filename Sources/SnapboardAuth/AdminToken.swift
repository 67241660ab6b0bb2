import Crypto

/// The operator's token for `/metrics` and admin endpoints.
public enum AdminToken {
    /// Compares the SHA-256 digests of the two, with swift-crypto's constant-time digest equality: the time
    /// says neither where they differ nor how long the expected token is.
    public static func matches(_ given: String, _ expected: String) -> Bool {
        SHA256.hash(data: Array(given.utf8)) == SHA256.hash(data: Array(expected.utf8))
    }
}
