/// Which failures of a job that runs every fraction of a second (the ``Sweeper``) are worth a
/// log line: while the database is down it fails on every run, and a line each time would bury
/// everything else. The first failure of an outage is logged, then at most one every
/// ``interval`` (saying how many were left out), and the first success after them says that it
/// recovered. Pure: the caller gives the time.
struct RepeatedFailureLog {
    /// The least time between two failure lines.
    let interval: Duration
    /// When the last failure line was logged; nil while the job succeeds.
    private var lastLine: ContinuousClock.Instant?
    private var failures = 0
    private var unlogged = 0

    /// - Parameter interval: the least time between two failure lines (30 s for the sweeper).
    init(interval: Duration) {
        self.interval = interval
    }

    /// Records a failure at `now`.
    /// - Returns: nil when it is not to be logged; else how many failures since the last line
    ///   were not logged.
    mutating func failed(at now: ContinuousClock.Instant) -> Int? {
        failures += 1
        if let lastLine, now < lastLine + interval {
            unlogged += 1
            return nil
        }
        defer { unlogged = 0 }
        lastLine = now
        return unlogged
    }

    /// Records a success.
    /// - Returns: the failures in a row it ends (a recovery to log), nil after none.
    mutating func succeeded() -> Int? {
        guard failures > 0 else { return nil }
        defer { self = RepeatedFailureLog(interval: interval) }
        return failures
    }
}
