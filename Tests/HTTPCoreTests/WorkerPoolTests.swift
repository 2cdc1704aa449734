import Dispatch
import Foundation
import Synchronization
import TestThreads
import Testing

@testable import HTTPCore

/// The engine's worker threads: a job never waits for a thread while fewer than the maximum are
/// busy, the maximum holds, and idle threads beyond the minimum end.
@Suite struct WorkerPoolTests {
    /// Waits, polling, until `condition` holds or 20 s passed.
    private static func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date.now.addingTimeInterval(20)
        while Date.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return condition()
    }

    /// 64 jobs that each block until all 64 run: they finish only if the pool runs them at once
    /// (a concurrent Dispatch queue on Linux adds about a thread a second, so they would take a
    /// minute).
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func blockingJobsEachGetAThreadAtOnce() {
        let pool = WorkerPool(name: "test.worker", maximumThreads: 64)
        let arrived = Atomic(0)
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<64 {
            pool.submit {
                if arrived.add(1, ordering: .relaxed).newValue == 64 {
                    for _ in 0..<64 { gate.signal() }
                }
                _ = gate.wait(timeout: .now() + 20)
                finished.signal()
            }
        }
        let start = Date.now
        for _ in 0..<64 { #expect(finished.wait(timeout: .now() + 30) == .success) }
        #expect(arrived.load(ordering: .relaxed) == 64)
        #expect(Date.now.timeIntervalSince(start) < 10, "the jobs waited for threads")
        let statistics = pool.statistics
        #expect(statistics.mostRunning == 64)
        #expect(statistics.threads <= 64)
    }

    /// With all threads busy, further jobs queue and run as threads free up; never more than
    /// the maximum run at once.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func theMaximumHoldsAndQueuedJobsRunLater() {
        let pool = WorkerPool(name: "test.worker", maximumThreads: 3)
        let gate = DispatchSemaphore(value: 0)
        let done = Atomic(0)
        for _ in 0..<9 {
            pool.submit {
                _ = gate.wait(timeout: .now() + 20)
                done.add(1, ordering: .relaxed)
            }
        }
        #expect(Self.eventually { pool.statistics.running == 3 })
        #expect(pool.statistics.queued == 6)
        #expect(pool.statistics.threads == 3)
        for _ in 0..<9 { gate.signal() }
        #expect(Self.eventually { done.load(ordering: .relaxed) == 9 })
        let statistics = pool.statistics
        #expect(statistics.mostRunning == 3)
        #expect(statistics.queued == 0)
    }

    /// Idle threads beyond the minimum end after the idle timeout; the pool starts threads
    /// again for the next jobs.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func idleThreadsEndDownToTheMinimum() {
        let pool = WorkerPool(name: "test.worker", maximumThreads: 8, minimumThreads: 1, idleTimeout: .milliseconds(50))
        let gate = DispatchSemaphore(value: 0)
        for _ in 0..<8 { pool.submit { _ = gate.wait(timeout: .now() + 20) } }
        #expect(Self.eventually { pool.statistics.running == 8 })
        for _ in 0..<8 { gate.signal() }
        #expect(Self.eventually { pool.statistics.threads == 1 })
        #expect(pool.statistics.idle == 1)
        let ran = DispatchSemaphore(value: 0)
        for _ in 0..<4 { pool.submit { ran.signal() } }
        for _ in 0..<4 { #expect(ran.wait(timeout: .now() + 20) == .success) }
    }

    /// After `stop()`, threads end once the queue is empty, the running ones after their job;
    /// a job submitted later still runs.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func stoppedPoolsLetTheirThreadsEnd() {
        let pool = WorkerPool(name: "test.worker", maximumThreads: 4, minimumThreads: 2)
        let gate = DispatchSemaphore(value: 0)
        for _ in 0..<3 { pool.submit { _ = gate.wait(timeout: .now() + 20) } }
        #expect(Self.eventually { pool.statistics.running == 3 })
        pool.stop()
        #expect(pool.statistics.threads == 3)
        for _ in 0..<3 { gate.signal() }
        #expect(Self.eventually { pool.statistics.threads == 0 })
        let ran = DispatchSemaphore(value: 0)
        pool.submit { ran.signal() }
        #expect(ran.wait(timeout: .now() + 20) == .success)
        #expect(Self.eventually { pool.statistics.threads == 0 })
    }

    /// What a job holds is released when it finishes, not when its thread takes the next job
    /// (an event stream's slot is freed by its closure's release).
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aFinishedJobIsReleasedAtOnce() {
        final class Held: Sendable {
            let released: DispatchSemaphore
            init(_ released: DispatchSemaphore) { self.released = released }
            deinit { released.signal() }
        }
        let pool = WorkerPool(name: "test.worker", maximumThreads: 1, minimumThreads: 1)
        let released = DispatchSemaphore(value: 0)
        do {
            let held = Held(released)
            pool.submit { withExtendedLifetime(held) {} }
        }
        #expect(released.wait(timeout: .now() + 20) == .success)
        #expect(pool.statistics.threads == 1)
    }

    /// Jobs submitted one after another from many threads all run, each once.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func everyJobRunsOnce() {
        let pool = WorkerPool(name: "test.worker", maximumThreads: 4, idleTimeout: .milliseconds(20))
        let count = Atomic(0)
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 {
                group.enter()
                pool.submit {
                    count.add(1, ordering: .relaxed)
                    group.leave()
                }
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(count.load(ordering: .relaxed) == 4_000)
    }
}
