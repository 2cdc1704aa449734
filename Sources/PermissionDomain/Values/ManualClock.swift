public import Foundation

/// A clock that only moves when told to: for tests and simulations.
public final class ManualClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    /// - Parameter now: the starting time, truncated to milliseconds.
    public init(_ now: Date) { current = now.truncatedToMilliseconds }

    public var now: Date { lock.withLock { current } }

    /// Moves the clock forward (or back) by `seconds`.
    public func advance(by seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds).truncatedToMilliseconds }
    }

    /// Sets the clock to `date`.
    public func set(_ date: Date) { lock.withLock { current = date.truncatedToMilliseconds } }
}
