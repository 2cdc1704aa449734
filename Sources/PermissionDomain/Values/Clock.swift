public import Foundation

/// The source of the current time. The domain never reads the system time itself
/// (STYLE "Never": Domain calls `Date()`); `main` injects a system clock, tests a manual one.
public protocol Clock: Sendable {
    /// The current time.
    var now: Date { get }
}
