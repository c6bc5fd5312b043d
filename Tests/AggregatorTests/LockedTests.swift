import Basics
import Dispatch
import Testing

/// Basics' `Locked` under contention: the case ThreadSanitizer misread with
/// `Synchronization.Mutex` (its contended path is invisible to TSan on Linux, see
/// `Locked`). Under `scripts/sanitize thread` this test reported a "Swift access
/// race" when written against Mutex (a standalone copy: 3 runs of 3); with `Locked`
/// it reports nothing, and in every build the count shows no increment was lost.
@Suite struct LockedTests {
    @Test func contendingThreadsLoseNoIncrement() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<50_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 200_000)
    }

    @Test func aThrownErrorReleasesTheLock() {
        struct Refused: Error {}
        let value = Locked("kept")
        #expect(throws: Refused.self) { try value.withLock { _ throws(Refused) in throw Refused() } }
        #expect(value.withLock { $0 } == "kept")
    }
}
