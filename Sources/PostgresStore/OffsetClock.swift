import Foundation
import PermissionDomain

/// The host's clock moved by a ``PostgresClockOffset``'s estimate (none before its first sample).
struct OffsetClock: Clock {
    let offset: PostgresClockOffset

    var now: Date {
        let now = offset.hostClock.now
        guard let estimate = offset.estimate else { return now }
        return now.addingTimeInterval(estimate)
    }
}
