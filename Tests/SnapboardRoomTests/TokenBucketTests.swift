import Testing

@testable import SnapboardRoom

@Suite("TokenBucket: a rate with a one-second burst")
struct TokenBucketTests {
    @Test("A full bucket gives one second's worth, then refills at the rate, never beyond the burst")
    func rate() {
        var bucket = TokenBucket(rate: 4, now: 0)
        var taken = (0..<6).map { _ in bucket.take(now: 0) }
        #expect(taken == [true, true, true, true, false, false])
        taken = (0..<2).map { _ in bucket.take(now: 0.25) }
        #expect(taken == [true, false])
        // Ten idle seconds refill only the burst.
        taken = (0..<5).map { _ in bucket.take(now: 10.25) }
        #expect(taken == [true, true, true, true, false])
    }

    @Test("A clock that steps back takes nothing away and adds nothing")
    func clockBack() {
        var bucket = TokenBucket(rate: 2, now: 5)
        let taken = [bucket.take(now: 5), bucket.take(now: 5), bucket.take(now: 4)]
        #expect(taken == [true, true, false])
    }

    @Test("A take of several tokens takes them all or none; a count beyond the burst takes the whole burst")
    func several() {
        var bucket = TokenBucket(rate: 10, now: 0)
        let taken = [bucket.take(6, now: 0), bucket.take(6, now: 0)]
        #expect(taken == [true, false])
        #expect(bucket.tokens == 4)
        let more = [bucket.take(4, now: 0), bucket.take(50, now: 0.5), bucket.take(50, now: 1)]
        #expect(more == [true, false, true])
        #expect(bucket.tokens == 0)
    }
}
