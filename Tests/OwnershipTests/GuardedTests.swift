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
                    if !access.wait(until: Date(timeIntervalSinceNow: 30)) { return false }
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
        let started = Date()
        let signalled = never.withLock { $0.wait(until: Date(timeIntervalSinceNow: 0.05)) }
        #expect(!signalled)
        #expect(Date().timeIntervalSince(started) >= 0.04)
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
