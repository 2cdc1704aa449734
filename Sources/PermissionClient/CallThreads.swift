import Dispatch
import Foundation
internal import Ownership

/// The threads a client's async calls block on (`send`, the typed methods, `download`): a
/// bulkhead between the backend and a slow or hung server. A call starts at once on an idle
/// thread, or on a new one while fewer than `maxThreads` are alive; with every thread busy it
/// waits in a FIFO queue of at most `maxWaiting` calls, and beyond that fails at once with
/// ``PermissionClientError/callQueueFull(threads:queued:)``. A waiting call that reaches its
/// deadline fails with the timeout error, and one whose task is cancelled leaves the queue at
/// once with the cancellation error; neither sends a request. A thread left idle for
/// `idleLifetime` ends.
///
/// Without the cap a server that stops answering would cost one thread per call in flight until
/// each call's timeout (50,000 threads at 5,000 calls/s and a 10 s timeout), and a failed
/// thread creation ends the process; with it, it costs at most `maxThreads` threads and
/// `maxWaiting` queued calls, and the rest fail fast.
///
/// Each client has a pool of its own, sized by its `Configuration`: with the usual one client
/// per process that is the process's cap, and clients that talk to different servers do not
/// hold each other up. The change feed (`events`) does not run here: it holds its thread for as
/// long as it is followed, so it has a thread of its own outside the cap.
///
/// `Sendable` as checked by the compiler: the queue and the counts live in a ``Guarded`` cell,
/// and a job is a `Sendable` value that leaves the queue under the lock exactly once (taken by
/// a thread, or withdrawn at its deadline or on cancellation), so it starts exactly once.
package final class CallThreads: Sendable {
    /// How a call met the pool, given to its job exactly once.
    struct Admission: Sendable {
        /// When the call was made.
        var calledAt: ContinuousClock.Instant
        /// How long it waited for a thread.
        var waited: Duration
        /// Why it got no thread (its deadline passed or its task was cancelled while it waited,
        /// or the queue was full); `nil` when it runs on a thread of the pool now.
        var refusal: PermissionClientError?
    }

    /// The pool's counts, for tests and diagnostics.
    package struct Load: Sendable, Equatable {
        /// Threads alive, running a call or idle.
        package var threads: Int
        /// Threads alive and waiting for a call.
        package var idle: Int
        /// Calls waiting for a thread.
        package var waiting: Int
        /// The most threads alive at once so far.
        package var peakThreads: Int
    }

    private struct Job: Sendable {
        let calledAt: ContinuousClock.Instant
        /// When it stops waiting for a thread; `nil` for never.
        let deadline: ContinuousClock.Instant?
        let start: @Sendable (Admission) -> Void
    }

    private struct State {
        /// The waiting calls by ticket; tickets are given in order, so the lowest is the oldest.
        var waiting: [UInt64: Job] = [:]
        /// The ticket of the next call to arrive.
        var nextTicket: UInt64 = 0
        /// No waiting call has a lower ticket than this.
        var front: UInt64 = 0
        var threads = 0
        var idle = 0
        var peakThreads = 0

        /// Removes and returns the oldest waiting call. Tickets withdrawn before their turn are
        /// skipped once each, so the cost stays constant per call on average.
        mutating func takeOldest() -> Job? {
            guard !waiting.isEmpty else {
                front = nextTicket
                return nil
            }
            while front < nextTicket {
                let ticket = front
                front += 1
                if let job = waiting.removeValue(forKey: ticket) { return job }
            }
            return nil
        }

        mutating func append(_ job: Job) -> UInt64 {
            let ticket = nextTicket
            nextTicket += 1
            waiting[ticket] = job
            return ticket
        }
    }

    /// The most threads alive at once.
    let maxThreads: Int
    /// The most calls waiting for a thread at once.
    let maxWaiting: Int
    private let idleLifetime: Duration
    private let state = Guarded(State())

    /// - Parameters:
    ///   - maxThreads: the most threads alive at once (at least 1).
    ///   - maxWaiting: the most calls waiting for a thread at once (0: none wait).
    ///   - idleLifetime: how long a thread waits for a call before it ends.
    init(maxThreads: Int, maxWaiting: Int, idleLifetime: Duration) {
        self.maxThreads = max(1, maxThreads)
        self.maxWaiting = max(0, maxWaiting)
        self.idleLifetime = idleLifetime
    }

    /// The counts now.
    package var load: Load {
        state.withLock { access in
            Load(
                threads: access.state.threads, idle: access.state.idle, waiting: access.state.waiting.count,
                peakThreads: access.state.peakThreads)
        }
    }

    /// Runs `start` on a thread of the pool as soon as one is free, or calls it with a refusal:
    /// at once when the queue is full, at `calledAt + budget` when no thread came free by then,
    /// or when `cancel` is cancelled while the call waits.
    /// - Parameters:
    ///   - calledAt: when the call was made; its wait counts from here.
    ///   - budget: the longest it may wait for a thread; `nil` for no limit.
    ///   - cancel: the call's cancellation flag.
    ///   - start: the call; given an ``Admission`` exactly once.
    func submit(
        calledAt: ContinuousClock.Instant, budget: Duration?, cancel: CancellationFlag?,
        start: @escaping @Sendable (Admission) -> Void
    ) {
        // A budget beyond a century is none; this also keeps the instant's arithmetic in range.
        let deadline = budget.flatMap { $0 < .seconds(Int64(1) << 32) ? calledAt + $0 : nil }
        let job = Job(calledAt: calledAt, deadline: deadline, start: start)
        enum Placement { case idleThread, newThread, queued(UInt64), full }
        let placement: Placement = state.withLock { access in
            // Every waiting call needs an idle thread of its own to start at once.
            if access.state.waiting.count < access.state.idle {
                _ = access.state.append(job)
                access.signal()
                return .idleThread
            }
            if access.state.threads < maxThreads {
                _ = access.state.append(job)
                access.state.threads += 1
                access.state.peakThreads = max(access.state.peakThreads, access.state.threads)
                return .newThread
            }
            guard access.state.waiting.count < maxWaiting else { return .full }
            return .queued(access.state.append(job))
        }
        switch placement {
        case .idleThread:
            break
        case .newThread:
            startThread()
        case .queued(let ticket):
            // The cancellation handler only takes the call out of the queue: the call itself
            // (its report to `onCall` included) fails on a Dispatch thread, not inside the
            // handler, which runs with the task's cancellation in progress.
            cancel?.whenCancelled { [self] in
                let refusal = PermissionClientError.transport(
                    code: PermissionClientError.cancelledCode, message: "cancelled", requestId: nil)
                guard let admission = withdraw(ticket, refusal: refusal) else { return }
                DispatchQueue.global().async { admission.job.start(admission.admission) }
            }
            if let deadline {
                let refusal = Self.timedOut(budget: deadline - calledAt, threads: maxThreads)
                let wait = Self.interval(deadline - ContinuousClock.now)
                DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [self] in
                    guard let withdrawn = withdraw(ticket, refusal: refusal) else { return }
                    withdrawn.job.start(withdrawn.admission)
                }
            }
        case .full:
            start(
                Admission(
                    calledAt: calledAt, waited: ContinuousClock.now - calledAt,
                    refusal: .callQueueFull(threads: maxThreads, queued: maxWaiting)))
        }
    }

    /// Removes the call with `ticket` if it still waits.
    /// - Returns: the call and its admission with `refusal`, to start; `nil` when it no longer waits.
    private func withdraw(_ ticket: UInt64, refusal: PermissionClientError) -> (job: Job, admission: Admission)? {
        guard let job = state.withLock({ $0.state.waiting.removeValue(forKey: ticket) }) else { return nil }
        return (job, Admission(calledAt: job.calledAt, waited: ContinuousClock.now - job.calledAt, refusal: refusal))
    }

    private func startThread() {
        let thread = Thread { [self] in
            while let job = next() {
                let now = ContinuousClock.now
                var admission = Admission(calledAt: job.calledAt, waited: now - job.calledAt, refusal: nil)
                // Taken just as its deadline passed, before the timer withdrew it.
                if let deadline = job.deadline, deadline <= now {
                    admission.refusal = Self.timedOut(budget: deadline - job.calledAt, threads: maxThreads)
                }
                job.start(admission)
            }
        }
        thread.name = "PermissionClient.call"
        thread.start()
    }

    /// The oldest waiting call, or `nil` once the thread has been idle for `idleLifetime`, the
    /// thread then no longer counted.
    private func next() -> Job? {
        state.withLock { access in
            let deadline = ContinuousClock.now + idleLifetime
            while true {
                if let job = access.state.takeOldest() { return job }
                access.state.idle += 1
                let woken = access.wait(until: deadline)
                access.state.idle -= 1
                if !woken, access.state.waiting.isEmpty {
                    access.state.threads -= 1
                    return nil
                }
            }
        }
    }

    /// The error of a call that found no free thread within its budget: the timeout a call that
    /// runs out of time gets (libcurl's code 28), though no request was sent.
    private static func timedOut(budget: Duration, threads: Int) -> PermissionClientError {
        .transport(
            code: PermissionClientError.timedOutCode,
            message: "no call thread came free within the timeout (\(budget.roundedUpMilliseconds) ms; all "
                + "\(threads) were busy); nothing was sent",
            requestId: nil)
    }

    /// `duration` as a dispatch interval, at least 0.
    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .nanoseconds(0) }
        return .nanoseconds(Int(min(seconds, Int64(1) << 33)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
