import Foundation

/// A one-way "stop" signal shared between a task's cancellation handler and the thread
/// running a blocking call: libcurl's progress callback polls it, and backoff sleeps wake on it.
final class CancellationFlag: @unchecked Sendable {
    private let condition = NSCondition()
    private var cancelled = false

    /// Whether `cancel()` was called.
    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Signals every waiter; idempotent.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps for `duration` or until cancelled, whichever comes first.
    /// - Parameter duration: how long to wait.
    /// - Returns: `false` when cancelled.
    func sleep(for duration: Duration) -> Bool {
        let deadline = Date(timeIntervalSinceNow: duration.seconds)
        condition.lock()
        defer { condition.unlock() }
        while !cancelled {
            if !condition.wait(until: deadline) { return true }
        }
        return false
    }
}
