import Foundation

/// Wakes event streams when the audit log may have grown: notified after every write request
/// and by the sweeper; closed by `PermissionApplication.stop()`, which ends every stream.
/// Waiters also time out, so a missed notification costs at most one poll period.
final class ChangeBroadcaster: @unchecked Sendable {
    private let condition = NSCondition()
    private var generation: UInt64 = 0
    private var closed = false

    /// The current generation; pass it to `wait(after:timeout:)` to sleep until it changes.
    var current: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return generation
    }

    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Something may have been committed: wake every waiter.
    func notify() {
        condition.lock()
        generation &+= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Ends every stream: waiters return and see `isClosed`.
    func close() {
        condition.lock()
        closed = true
        generation &+= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps until the generation differs from `seen`, the broadcaster closes, or `timeout` passes.
    func wait(after seen: UInt64, timeout: Duration) {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = Date().addingTimeInterval(max(0, seconds))
        condition.lock()
        while generation == seen, !closed {
            if !condition.wait(until: deadline) { break }
        }
        condition.unlock()
    }
}
