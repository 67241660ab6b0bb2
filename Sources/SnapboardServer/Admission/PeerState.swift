import SnapboardRoom

/// One IP address while it has open WebSockets: how many, and the op budget they share. Its sessions
/// hold the same instance, so an op's check finds it by session number without hashing the address.
final class PeerState {
    var connections = 0
    var ops: TokenBucket

    init(opsPerSecond: Double, now: Double) {
        ops = TokenBucket(rate: opsPerSecond, now: now)
    }
}
