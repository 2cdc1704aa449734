package import Foundation
import PermissionDomain

/// A clock that only moves when told to: the tests' time for the domain rules, the service and
/// the in-process application. Tests only; the server always runs on the system clock.
package final class ManualClock: Clock, @unchecked Sendable {
    // @unchecked: `current` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var current: Date

    /// - Parameter now: the starting time, truncated to milliseconds.
    package init(_ now: Date) { current = now.truncatedToMilliseconds }

    package var now: Date { lock.withLock { current } }

    /// Moves the clock forward (or back) by `seconds`.
    package func advance(by seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds).truncatedToMilliseconds }
    }

    /// Sets the clock to `date`.
    package func set(_ date: Date) { lock.withLock { current = date.truncatedToMilliseconds } }
}
