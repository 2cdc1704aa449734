import Foundation
internal import Ownership

/// A one-way "stop" signal shared between a task's cancellation handler and the thread
/// running a blocking call: libcurl's progress callback polls it, backoff sleeps wake on it,
/// and a call still waiting for a thread (``CallThreads``) leaves the queue through the action
/// registered with ``whenCancelled(_:)``.
/// `Sendable` as checked by the compiler: the flag and the action live in a ``Guarded`` cell.
final class CancellationFlag: Sendable {
    private struct State {
        var cancelled = false
        var action: (@Sendable () -> Void)?
    }

    private let state = Guarded(State())

    /// Whether `cancel()` was called.
    var isCancelled: Bool {
        state.withLock { $0.state.cancelled }
    }

    /// Signals every waiter and runs the registered action (on the calling thread, outside the
    /// lock); idempotent.
    func cancel() {
        let action = state.withLock { access -> (@Sendable () -> Void)? in
            guard !access.state.cancelled else { return nil }
            access.state.cancelled = true
            access.broadcast()
            let action = access.state.action
            access.state.action = nil
            return action
        }
        action?()
    }

    /// Runs `action` once when `cancel()` is called, or at once on the calling thread when it
    /// already was; it replaces an action registered before.
    func whenCancelled(_ action: @escaping @Sendable () -> Void) {
        let already = state.withLock { access in
            if access.state.cancelled { return true }
            access.state.action = action
            return false
        }
        if already { action() }
    }

    /// Sleeps for `duration` or until cancelled, whichever comes first.
    /// - Parameter duration: how long to wait.
    /// - Returns: `false` when cancelled.
    func sleep(for duration: Duration) -> Bool {
        let deadline = ContinuousClock.now + duration
        return state.withLock { access in
            while !access.state.cancelled {
                if !access.wait(until: deadline) { return true }
            }
            return false
        }
    }
}
