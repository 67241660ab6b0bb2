import Testing

@testable import SnapboardLWS

@Suite struct LogLimiterTests {
    @Test func aBurstPassesThenLinesAreCountedAndReported() {
        var limiter = LogLimiter(burst: 3, interval: 10)
        var written: [String] = []
        for i in 0..<1000 { written += limiter.admit("line \(i)", now: Double(i) * 0.001) }
        #expect(written == ["line 0", "line 1", "line 2"])
        // The next interval starts with the count of what was left out.
        #expect(limiter.admit("later", now: 10.5) == ["(997 log lines left out in the last 10 s)", "later"])
        #expect(limiter.admit("again", now: 10.6) == ["again"])
    }

    @Test func theRateIsBoundedWhateverTheInput() {
        var limiter = LogLimiter(burst: 20, interval: 10)
        var written = 0
        // 100,000 lines over 100 s: at most burst + 1 lines in each of the 10 intervals (plus the last count).
        for i in 0..<100_000 { written += limiter.admit("x", now: Double(i) * 0.001).count }
        #expect(written <= 10 * 21)
    }
}
