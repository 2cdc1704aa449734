import Foundation
internal import Ownership

/// A one-way "stop" signal shared between a task's cancellation handler and the thread
/// running a blocking call: libcurl's progress callback polls it, and backoff sleeps wake on it.
/// `Sendable` as checked by the compiler: the flag lives in a ``Guarded`` cell.
final class CancellationFlag: Sendable {
    private let cancelled = Guarded(false)

    /// Whether `cancel()` was called.
    var isCancelled: Bool {
        cancelled.withLock { $0.state }
    }

    /// Signals every waiter; idempotent.
    func cancel() {
        cancelled.withLock { access in
            access.state = true
            access.broadcast()
        }
    }

    /// Sleeps for `duration` or until cancelled, whichever comes first.
    /// - Parameter duration: how long to wait.
    /// - Returns: `false` when cancelled.
    func sleep(for duration: Duration) -> Bool {
        let deadline = Date(timeIntervalSinceNow: duration.seconds)
        return cancelled.withLock { access in
            while !access.state {
                if !access.wait(until: deadline) { return true }
            }
            return false
        }
    }
}
