import Testing

@testable import SnapboardServer

@Suite("The tick stretches while the service thread is busy")
struct TickPacerTests {
    @Test("Idle or half busy: the shortest tick; 85 % and more: the longest; in between, in proportion")
    func stretches() {
        var pacer = TickPacer(minimum: 16, maximum: 33)
        #expect(pacer.next(wall: 0, cpu: 0) == 16)
        // Under a window's worth of time, nothing is decided yet.
        #expect(pacer.next(wall: 0.1, cpu: 0.1) == 16)
        #expect(pacer.next(wall: 0.25, cpu: 0.1) == 16)
        #expect(pacer.next(wall: 0.5, cpu: 0.35) == 33 && abs(pacer.load - 1) < 1e-9)
        #expect(pacer.next(wall: 0.75, cpu: 0.35 + 0.25 * 0.7) == 26)
        #expect(pacer.next(wall: 1.0, cpu: 0.55) == 16)
    }

    @Test("A maximum at the minimum keeps the tick fixed")
    func fixed() {
        var pacer = TickPacer(minimum: 16, maximum: 16)
        _ = pacer.next(wall: 0, cpu: 0)
        #expect(pacer.next(wall: 1, cpu: 1) == 16)
    }
}
