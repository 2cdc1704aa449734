import Foundation
import Synchronization
package import Testing

/// A trait for tests that block their thread for long: waiting for a child process, a
/// PostgreSQL statement, a socket or a semaphore. They run on threads of their own instead of on
/// Swift concurrency's shared pool, and so does swift-testing's work around them, time limits
/// included.
///
/// The shared pool has one thread a core, and swift-testing runs a synchronous test on it.
/// Tests that block there for seconds (the end-to-end ones wait for servers they start) hold
/// its threads; with two cores, two of them were enough to hold back every other test of the run
/// for a minute. A test's time limit starts before its body has a thread, and its expiry and the
/// body's end are each handled by a job of the pool: such a test failed its limit without having
/// run. With this trait the test's scope (a suite, or a test function around all its cases)
/// prefers ``BlockingTestExecutor``, and every task swift-testing makes inside it inherits that
/// preference: the body, the time limit's timer and the task that waits for both.
///
/// ``BlockingTestExecutor`` gives each job a new thread, so a synchronous test runs on one thread
/// and nothing in the scope ever waits for one. `OwnThreadTests` checks that the bodies of such
/// tests, synchronous and asynchronous, run on those threads and no others do;
/// `TimeLimitedTestsRunOnTheirOwnThreads` that every test with a time limit has this trait.
///
/// Tests that start processes (the server, `permctl`, a replica's PostgreSQL) also take one of
/// ``TestLanes/processes``' lanes for each test function, so that no more of them run at once
/// than cores: two dozen servers at once on two cores stretch the processes' own deadlines (a
/// server's exit within 10 seconds) past what they allow. The lane is taken around the test
/// function, outside its time limit: the wait for a lane is not counted in it.
package struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    /// The lanes a test function waits for before it runs, if any.
    let lanes: TestLanes?

    package var isRecursive: Bool { true }

    /// Suites and test functions, around everything they run; a test case runs inside its
    /// function's scope already.
    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? self : nil
    }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard let lanes, !test.isSuite else {
            return try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try await function() }
        }
        await lanes.enter()
        defer { lanes.leave() }
        try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Runs the test (or each test of the suite) and swift-testing's work around it on threads of
    /// its own, off Swift concurrency's shared pool: for tests that block their thread for long
    /// (see ``OwnThreadTrait``).
    package static var blocksItsThread: Self { OwnThreadTrait(lanes: nil) }

    /// As ``blocksItsThread``, and each test function in one of ``TestLanes/processes``' lanes: for
    /// tests that start processes (see ``OwnThreadTrait``).
    package static var startsProcesses: Self { OwnThreadTrait(lanes: .processes) }
}

/// At most `width` tests at once; the others wait, without holding a thread, in the order they
/// came.
package final class TestLanes: Sendable {
    /// The lanes of the tests that start processes: as many as cores, and at least two.
    package static let processes = TestLanes(width: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>
    package let width: Int

    package init(width: Int) {
        precondition(width > 0, "a lane at least")
        self.width = width
        state = Mutex(State(free: width))
    }

    /// Waits for a free lane and takes it.
    package func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let entered = state.withLock { state -> Bool in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if entered { continuation.resume() }
        }
    }

    /// The test cases waiting for a lane.
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Gives the lane taken by ``enter()`` to the first waiting test case, or frees it.
    package func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                precondition(state.free <= width, "a lane left that was not entered")
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// Runs every job on a new thread of its own (see ``OwnThreadTrait``).
package final class BlockingTestExecutor: TaskExecutor {
    /// The one instance; it keeps no state.
    package static let shared = BlockingTestExecutor()

    /// The key of the mark in the thread dictionary of the threads this executor made.
    private static let threadKey = "BlockingTestExecutor.thread"

    private init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread {
            Thread.current.threadDictionary[Self.threadKey] = true
            job.runSynchronously(on: executor)
        }
        thread.name = "blocking test"
        thread.start()
    }

    /// Whether the calling thread is one of this executor's.
    package static var isOnOwnThread: Bool {
        Thread.current.threadDictionary[threadKey] as? Bool == true
    }
}
