import Foundation
import Ownership
import Testing

@Suite("Guarded state")
struct GuardedTests {
    @Test("the state is reached and changed only inside withLock")
    func changesUnderTheLock() {
        let counter = Guarded(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { counter.withLock { $0.state += 1 } }
        }
        #expect(counter.withLock { $0.state } == 8_000)
    }

    @Test("a waiter wakes on broadcast, and a wait times out when nobody signals")
    func waitsAndWakes() {
        let flag = Guarded(false)
        let woke = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let seen = flag.withLock { access in
                while !access.state {
                    if !access.wait(until: .now + .seconds(30)) { return false }
                }
                return true
            }
            if seen { woke.signal() }
        }
        flag.withLock { access in
            access.state = true
            access.broadcast()
        }
        #expect(woke.wait(timeout: .now() + 30) == .success)

        let never = Guarded(0)
        let started = ContinuousClock.now
        let signalled = never.withLock { $0.wait(until: .now + .milliseconds(50)) }
        #expect(!signalled)
        #expect(started.duration(to: .now) >= .milliseconds(50))
    }

    /// The deadline is handed to the condition as a `CLOCK_MONOTONIC` time, the clock the
    /// condition was made to wait on: were it to wait on the wall clock (`NSCondition`'s), a
    /// monotonic time (seconds since boot) would read as 1970 and every wait would end at once;
    /// were the time the wall clock's, a monotonic wait would last decades.
    @Test("timed waits last their duration on the monotonic clock, and a past deadline does not wait")
    func timedWaitsRunOnTheMonotonicClock() {
        let never = Guarded(0)
        for milliseconds in [1, 20, 120] {
            let started = ContinuousClock.now
            #expect(!never.withLock { $0.wait(until: started + .milliseconds(milliseconds)) })
            let waited = started.duration(to: .now)
            #expect(waited >= .milliseconds(milliseconds) && waited < .seconds(10), "\(milliseconds) ms: \(waited)")
        }
        let started = ContinuousClock.now
        #expect(!never.withLock { $0.wait(until: started - .seconds(1)) })
        #expect(!never.withLock { $0.wait(until: started) })
        #expect(started.duration(to: .now) < .seconds(1))

        // A wait with a deadline far ahead still wakes on a signal: the signal comes once the
        // waiter is seen inside the wait (it set `waiting` under the lock, which the wait gives
        // up only once it sleeps).
        struct Flag {
            var waiting = false
            var set = false
        }
        let flag = Guarded(Flag())
        let woke = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let seen = flag.withLock { access in
                while !access.state.set {
                    access.state.waiting = true
                    if !access.wait(until: .now + .seconds(3_600)) { return false }
                }
                return true
            }
            if seen { woke.signal() }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while !flag.withLock({ $0.state.waiting }), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(flag.withLock { $0.state.waiting })
        flag.withLock { access in
            access.state.set = true
            access.signal()
        }
        #expect(woke.wait(timeout: .now() + 30) == .success)
    }

    @Test("an error thrown inside withLock releases the lock")
    func throwingReleases() {
        struct Refused: Error {}
        let value = Guarded(1)
        #expect(throws: Refused.self) {
            try value.withLock { (_) throws(Refused) -> Void in throw Refused() }
        }
        #expect(value.withLock { $0.state } == 1)  // would deadlock if the lock were still held
    }

    #if DEBUG
    @Test("taking the lock again on the thread that holds it stops instead of deadlocking")
    func reentranceStops() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let value = Guarded(0)
            value.withLock { _ in value.withLock { $0.state += 1 } }
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Guarded.withLock entered again on the thread that holds it"), "\(message)")
    }
    #endif
}
