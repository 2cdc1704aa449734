import Foundation
internal import Ownership

/// Wakes event streams when the audit log may have grown: notified after every write request
/// and by the sweeper; closed by `PermissionApplication.stop()`, which ends every stream.
/// Waiters also time out, so a missed notification costs at most one poll period.
/// `Sendable` as checked by the compiler: its state lives in a ``Guarded`` cell.
final class ChangeBroadcaster: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var closed = false
        var logEpoch: UInt64 = 0
    }

    private let guarded = Guarded(State())

    /// The current generation; pass it to `wait(after:timeout:)` to sleep until it changes.
    var current: UInt64 {
        guarded.withLock { $0.state.generation }
    }

    var isClosed: Bool {
        guarded.withLock { $0.state.closed }
    }

    /// How many times the log was found to have gone back (``logWentBack()``); a stream that
    /// sees it change ends, since the seqs after its position are being given out again.
    var logEpoch: UInt64 {
        guarded.withLock { $0.state.logEpoch }
    }

    /// The log went back (its newest entries deleted, or the database restored under the
    /// server): wake every waiter, and every stream then ends, so that its client resumes
    /// from its last entry and is told (`409 log-diverged` or `beyond-log-head`) rather than
    /// skipping the new entries that take the old seqs.
    func logWentBack() {
        guarded.withLock { access in
            access.state.logEpoch &+= 1
            access.state.generation &+= 1
            access.broadcast()
        }
    }

    /// Something may have been committed: wake every waiter.
    func notify() {
        guarded.withLock { access in
            access.state.generation &+= 1
            access.broadcast()
        }
    }

    /// Ends every stream: waiters return and see `isClosed`.
    func close() {
        guarded.withLock { access in
            access.state.closed = true
            access.state.generation &+= 1
            access.broadcast()
        }
    }

    /// Sleeps until the generation differs from `seen`, the broadcaster closes, or `timeout` passes.
    func wait(after seen: UInt64, timeout: Duration) {
        let deadline = ContinuousClock.now + max(.zero, timeout)
        guarded.withLock { access in
            while access.state.generation == seen, !access.state.closed {
                if !access.wait(until: deadline) { break }
            }
        }
    }
}
