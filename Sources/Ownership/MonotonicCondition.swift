#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex and a condition variable whose timed waits run on the monotonic clock.
///
/// `NSCondition.wait(until:)` takes a `Date`, and on Linux waits on `CLOCK_REALTIME`: when the
/// wall clock is stepped (NTP at boot, a VM restored from a snapshot, an operator's `date -s`),
/// a wait meant for 5 s ends at once or lasts as long as the step. A pool's checkout timeout,
/// the SDK's backoff before a retry and a worker's idle lifetime are durations, so they wait on
/// `CLOCK_MONOTONIC` here (``clock``), and their deadlines are `ContinuousClock` instants.
///
/// Not recursive; the caller pairs `lock()` and `unlock()` (``Guarded`` does, and is what the
/// rest of the package uses).
package final class MonotonicCondition: @unchecked Sendable {
    // @unchecked: the mutex and the condition are what make the callers' state safe to share;
    // pthread objects must not move, so they live in storage of their own, freed at deinit.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// The clock timed waits measure their deadline on.
    package static let clock = CLOCK_MONOTONIC

    package init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        var mutexAttributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&mutexAttributes)
        #if DEBUG
        // A wrong unlock (not the holder's) fails with EPERM instead of corrupting the lock.
        pthread_mutexattr_settype(&mutexAttributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        precondition(pthread_mutex_init(mutex, &mutexAttributes) == 0, "pthread_mutex_init failed")
        pthread_mutexattr_destroy(&mutexAttributes)
        var conditionAttributes = pthread_condattr_t()
        pthread_condattr_init(&conditionAttributes)
        precondition(
            pthread_condattr_setclock(&conditionAttributes, Self.clock) == 0, "the monotonic clock for conditions")
        precondition(pthread_cond_init(condition, &conditionAttributes) == 0, "pthread_cond_init failed")
        pthread_condattr_destroy(&conditionAttributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() {
        let result = pthread_mutex_lock(mutex)
        precondition(result == 0, "pthread_mutex_lock failed: \(result)")
    }

    package func unlock() {
        let result = pthread_mutex_unlock(mutex)
        precondition(result == 0, "pthread_mutex_unlock failed: \(result)")
    }

    /// Releases the lock until signalled (or woken spuriously), then takes it again.
    package func wait() {
        let result = pthread_cond_wait(condition, mutex)
        precondition(result == 0, "pthread_cond_wait failed: \(result)")
    }

    /// Releases the lock until signalled (or woken spuriously) or `deadline` passes, then takes
    /// it again; the caller holds the lock.
    /// - Returns: `false` when the deadline passed.
    package func wait(until deadline: ContinuousClock.Instant) -> Bool {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return false }
        var now = timespec()
        clock_gettime(Self.clock, &now)
        let (seconds, attoseconds) = remaining.components
        var nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        var wholeSeconds = Int(now.tv_sec) &+ Int(clamping: seconds)
        if nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            wholeSeconds &+= 1
        }
        var until = timespec(tv_sec: wholeSeconds, tv_nsec: nanoseconds)
        let result = pthread_cond_timedwait(condition, mutex, &until)
        precondition(result == 0 || result == ETIMEDOUT, "pthread_cond_timedwait failed: \(result)")
        return result == 0
    }

    /// Wakes one waiter.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
