import Foundation
internal import Ownership

/// The threads that run responders which may block, and streamed bodies, off the event loops:
/// one thread for each job running at once, up to ``maximumThreads``.
///
/// Why not a concurrent `DispatchQueue`: on Linux, Dispatch sizes its pool by the processors and
/// adds a thread about once a second while every one is blocked. A durable write blocks its
/// thread until its batch is committed, so with Dispatch only two or three writes waited on the
/// writer at once, however many clients sent them, and group commit had nobody to group. Here a
/// job never waits for a thread while fewer than ``maximumThreads`` are busy, so every
/// connection's write can be in the writer's next batch. The server sets the maximum to its
/// connection cap: a connection has at most one job here at a time (a request or a stream), so
/// no job ever queues behind another.
///
/// Threads are started when a job finds none idle, and one that has been idle for
/// ``idleTimeout`` ends, down to ``minimumThreads``; after ``stop()``, every thread ends once
/// nothing is queued (a job submitted later still runs, on a thread that then ends).
final class WorkerPool: Sendable {
    private struct State {
        /// Jobs not yet taken, oldest first from `head`.
        var jobs: [(@Sendable () -> Void)?] = []
        var head = 0
        /// Threads alive, and those of them waiting for a job.
        var threads = 0
        var idle = 0
        /// Jobs running now.
        var running = 0
        /// The most jobs that ran at once since the pool was made.
        var mostRunning = 0
        /// Set by `stop()`: threads end as soon as nothing is queued.
        var stopping = false
        var queued: Int { jobs.count - head }

        mutating func take() -> (@Sendable () -> Void)? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }
    }

    /// What the pool is doing, for tests and metrics.
    struct Statistics: Sendable, Equatable {
        var threads: Int
        var idle: Int
        var running: Int
        var queued: Int
        var mostRunning: Int
    }

    /// The most threads alive at once; a job submitted while all of them are busy waits for one.
    let maximumThreads: Int
    /// Threads kept alive while idle.
    let minimumThreads: Int
    /// How long a thread beyond ``minimumThreads`` waits for a job before it ends.
    let idleTimeout: Duration
    private let name: String
    private let state = Guarded(State())

    /// - Parameters:
    ///   - name: the threads' name.
    ///   - maximumThreads: at least 1.
    ///   - minimumThreads: at most `maximumThreads`.
    ///   - idleTimeout: how long a surplus idle thread lives.
    init(name: String, maximumThreads: Int, minimumThreads: Int = 0, idleTimeout: Duration = .seconds(10)) {
        precondition(maximumThreads >= 1, "a worker pool needs at least one thread")
        precondition(
            (0...maximumThreads).contains(minimumThreads), "a worker pool's minimum is between 0 and its maximum")
        self.name = name
        self.maximumThreads = maximumThreads
        self.minimumThreads = minimumThreads
        self.idleTimeout = idleTimeout
    }

    /// Runs `job` on an idle thread, or on a new one while fewer than ``maximumThreads`` are
    /// alive, else when a thread is free.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { access -> Bool in
            access.state.jobs.append(job)
            // Every idle thread will take a job once woken; start one for each job beyond them.
            if access.state.queued > access.state.idle, access.state.threads < maximumThreads {
                access.state.threads += 1
                return true
            }
            if access.state.idle > 0 { access.signal() }
            return false
        }
        if start { startThread() }
    }

    /// Lets every thread end once the queue is empty (the server stopped).
    func stop() {
        state.withLock { access in
            access.state.stopping = true
            access.broadcast()
        }
    }

    /// A snapshot of the pool.
    var statistics: Statistics {
        state.withLock { access in
            let state = access.state
            return Statistics(
                threads: state.threads, idle: state.idle, running: state.running, queued: state.queued,
                mostRunning: state.mostRunning)
        }
    }

    private func startThread() {
        let thread = Thread { [self] in
            Thread.current.name = name  // set on the thread itself, so that Linux shows it (`comm`)
            work()
        }
        thread.start()
    }

    /// A thread's life: take jobs until none came for `idleTimeout` and the pool has more than
    /// its minimum.
    private func work() {
        var finishedOne = false
        // `job` is released at the end of each turn, before the thread waits for the next one:
        // what a job holds (a stream's slot, a connection) goes as soon as it is done.
        while let job = next(afterJob: finishedOne) {
            job()
            finishedOne = true
        }
    }

    /// The next job, or nil when this thread should end.
    /// - Parameter afterJob: the thread just finished a job.
    private func next(afterJob: Bool) -> (@Sendable () -> Void)? {
        state.withLock { access -> (@Sendable () -> Void)? in
            if afterJob { access.state.running -= 1 }
            while true {
                if let job = access.state.take() {
                    access.state.running += 1
                    access.state.mostRunning = max(access.state.mostRunning, access.state.running)
                    return job
                }
                if access.state.stopping {
                    access.state.threads -= 1
                    return nil
                }
                access.state.idle += 1
                let signalled = access.wait(until: .now + idleTimeout)
                access.state.idle -= 1
                if !signalled, access.state.queued == 0, access.state.threads > minimumThreads {
                    access.state.threads -= 1
                    return nil
                }
            }
        }
    }
}
