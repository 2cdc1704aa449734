package import Foundation
import PermissionDomain
import Synchronization

/// A clock that only moves when told to: the tests' time for the domain rules, the service and
/// the in-process application. Tests only; the server always runs on the system clock.
/// `Sendable` as checked by the compiler: the time lives in a `Mutex`.
package final class ManualClock: Clock, Sendable {
    private let current: Mutex<Date>

    /// - Parameter now: the starting time, truncated to milliseconds.
    package init(_ now: Date) { current = Mutex(now.truncatedToMilliseconds) }

    package var now: Date { current.withLock { $0 } }

    /// Moves the clock forward (or back) by `seconds`.
    package func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds).truncatedToMilliseconds }
    }

    /// Sets the clock to `date`.
    package func set(_ date: Date) { current.withLock { $0 = date.truncatedToMilliseconds } }
}
