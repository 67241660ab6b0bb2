import Dispatch
import SnapboardLock
import Testing

@Suite("A value behind a lock")
struct LockedTests {
    @Test("Increments from many threads at once all count: each withLock sees the others' writes")
    func concurrentIncrements() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test("withLock hands back what its body returns, and rethrows what it throws with the value unchanged")
    func resultsAndErrors() {
        struct Refused: Error {}
        let list = Locked([1, 2])
        #expect(list.withLock { $0.count } == 2)
        #expect(throws: Refused.self) {
            try list.withLock { (value: inout [Int]) throws -> Void in throw Refused() }
        }
        #expect(list.withLock { $0 } == [1, 2])
    }
}
