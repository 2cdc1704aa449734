import Foundation
import PermissionDomain

/// The database's time as a ``PostgresClockOffset`` keeps it (``PostgresClockOffset/databaseNow``),
/// the host's before its first sample.
struct OffsetClock: Clock {
    let offset: PostgresClockOffset

    var now: Date { offset.databaseNow ?? offset.hostNow }
}
