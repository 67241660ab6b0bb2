import SnapboardLock
import SnapboardRoom

/// How often one address, and one access token, may start a heavy read (an export, a past state, a page
/// of history): `--reads-per-second-per-ip` and `--reads-per-second-per-token`, each a token bucket holding
/// one second's worth. Shared by the shards; touched once per heavy read, never per op. Idle buckets (full
/// again) are forgotten, so a stranger cycling addresses cannot grow the table without bound.
final class ReadLimits: Sendable {
    let perIP: Double
    let perToken: Double
    private let buckets = Locked<(ip: [String: Entry], token: [String: Entry])>(([:], [:]))

    struct Entry {
        var bucket: TokenBucket
        var used: Double
    }

    /// A refusal: the `/metrics` reason, and the seconds to wait (for `Retry-After`).
    struct Refusal {
        var reason: String
        var retryAfter: Int
        var message: String
    }

    init(perIP: Double, perToken: Double) {
        self.perIP = perIP
        self.perToken = perToken
    }

    /// Takes a read from `ip`'s budget and, when the request carries one, `token`'s; the refusal when
    /// either is spent.
    func admit(ip: String, token: String?, now: Double) -> Refusal? {
        buckets.withLock { tables in
            if tables.ip.count + tables.token.count > 4096 {
                // A bucket untouched for a second is full again: it says nothing the default does not.
                tables.ip = tables.ip.filter { now - $0.value.used < 1 }
                tables.token = tables.token.filter { now - $0.value.used < 1 }
            }
            guard Self.take(&tables.ip, ip, rate: perIP, now: now) else {
                return Refusal(reason: "ip_reads", retryAfter: Self.wait(perIP),
                               message: "more than \(Self.format(perIP)) exports, past states or history pages a second from this address")
            }
            if let token, !Self.take(&tables.token, token, rate: perToken, now: now) {
                return Refusal(reason: "token_reads", retryAfter: Self.wait(perToken),
                               message: "more than \(Self.format(perToken)) exports, past states or history pages a second with this token")
            }
            return nil
        }
    }

    private static func take(_ table: inout [String: Entry], _ key: String, rate: Double, now: Double) -> Bool {
        var entry = table[key] ?? Entry(bucket: TokenBucket(rate: rate, now: now), used: now)
        let taken = entry.bucket.take(now: now)
        entry.used = now
        table[key] = entry
        return taken
    }

    /// Whole seconds until a spent bucket holds a token again: at least 1.
    private static func wait(_ rate: Double) -> Int { max(1, Int((1 / rate).rounded(.up))) }

    private static func format(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(rate)
    }
}
