public import Foundation
internal import Ownership
public import PermissionDomain
import Synchronization

/// How far the database's clock is ahead of this host's (negative: behind), as a replica
/// measures it: every ``sampleInterval`` its change follower reads `clock_timestamp()` and
/// takes the midpoint of the round trip as the moment it was read, so each sample is off by
/// at most half its round trip. The estimate is the sample of the shortest round trip among
/// the last ``kept``. The host's clock is `hostClock`: the system's in `serve`, another in tests
/// (a host whose clock is wrong). The estimate says how wrong it is (logs, metrics); the time
/// kept (``clock``) runs on from its sample by the monotonic clock, so a step of the host's
/// clock between samples (NTP) moves neither it nor the deadlines it decides.
///
/// Replicas on several hosts decide deadlines (a prompt's TTL, an Allow Once or an expiring
/// grant's end, whether a `until` lies in the future) and stamp audit entries with the time:
/// each on its own host's clock, a replica whose clock runs fast would end every user's grants
/// and prompts early, and write entries dated in the future. On the database's clock
/// (``clock(over:)``) they agree, within a round trip, whatever their hosts' clocks say.
public final class PostgresClockOffset: Sendable {
    /// How often the follower samples.
    static let sampleInterval: Duration = .seconds(1)
    /// How many samples the estimate is chosen from.
    static let kept = 4
    /// An estimate farther than this from 0 is reported (the host's clock is wrong), seconds.
    static let farOff: TimeInterval = 1
    /// And reported again once back within this.
    static let backWithin: TimeInterval = 0.5

    private struct Sample {
        var offset: TimeInterval
        var roundTrip: TimeInterval
        /// The database's time minus this process's monotonic time (``monotonicNanoseconds``)
        /// at the sample's midpoint, nanoseconds.
        var databaseMinusMonotonic: Int64
    }

    private struct State {
        var samples: [Sample] = []
        var lastSample: ContinuousClock.Instant?
        var reportedOff = false
    }

    /// A change of the estimate worth a log line.
    enum Change: Equatable {
        /// Now more than ``farOff`` off.
        case off(TimeInterval)
        /// Back within ``backWithin`` after that.
        case right(TimeInterval)
    }

    private let state = Mutex(State())
    /// ``estimate`` in nanoseconds, ``none`` before the first sample: read on every `now` of
    /// the service (each status read), so without a lock.
    private let estimateNanoseconds = Atomic<Int64>(none)
    /// The estimate's sample's ``Sample/databaseMinusMonotonic``, ``none`` before the first
    /// sample: ``clock`` is the monotonic clock moved by it, so that it keeps the database's
    /// time when the host's clock is stepped (NTP) between samples.
    private let anchorNanoseconds = Atomic<Int64>(none)
    private static let none = Int64.min
    /// Where ``monotonicNanoseconds`` counts from.
    private let origin = ContinuousClock.now

    private static let databaseTime = PreparedStatement(
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")

    /// This host's clock, which the samples are taken on (the estimate), nil for the system's.
    private let hostClock: (any Clock)?

    /// This host's time now.
    var hostNow: Date { hostClock?.now ?? Date() }

    /// - Parameter hostClock: nil for the system's.
    public init(hostClock: (any Clock)? = nil) {
        self.hostClock = hostClock
    }

    /// The database's clock minus this host's, seconds; nil before the first sample.
    public var estimate: TimeInterval? {
        let nanoseconds = estimateNanoseconds.load(ordering: .relaxed)
        return nanoseconds == Self.none ? nil : TimeInterval(nanoseconds) / 1e9
    }

    /// The time on the database's clock: the monotonic clock from the estimate's sample on (the
    /// host's until the first sample), however the host's clock is set meanwhile.
    public var clock: any Clock { OffsetClock(offset: self) }

    /// This process's monotonic clock, nanoseconds since the offset was made.
    func monotonicNanoseconds(_ instant: ContinuousClock.Instant = .now) -> Int64 {
        (instant - origin).nanoseconds
    }

    /// The database's time now, from the estimate's sample and the monotonic clock; nil before
    /// the first sample.
    var databaseNow: Date? {
        let anchor = anchorNanoseconds.load(ordering: .relaxed)
        guard anchor != Self.none else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(anchor + monotonicNanoseconds()) / 1e9)
    }

    /// Whether a sample is due (none yet, or ``sampleInterval`` since the last).
    func isDue(at now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard let last = state.lastSample else { return true }
            return now - last >= Self.sampleInterval
        }
    }

    /// Reads the database's clock on `connection` (`clock_timestamp()`, the time of the call
    /// even inside a transaction) and records the sample; returns what the log should say of
    /// it, if anything (``record(sent:database:received:at:)``).
    func sampleReportingChange(on connection: PostgresConnection) throws -> Change? {
        let sentMonotonic = ContinuousClock.now
        let sent = hostNow
        let rows = try connection.query(Self.databaseTime)
        let received = hostNow
        let receivedMonotonic = ContinuousClock.now
        guard rows.count == 1 else { return nil }
        let database = Date(timeIntervalSince1970: TimeInterval(try rows[0].int64(at: 0)) / 1_000_000)
        return record(
            sent: sent, database: database, received: received, at: receivedMonotonic,
            monotonic: (sentMonotonic, receivedMonotonic))
    }

    /// Records one sample: the database said `database` between `sent` and `received` on this
    /// host's clock. Returns the change worth a log line: the estimate now more than
    /// ``farOff`` off, or back within ``backWithin`` after that.
    /// - Parameter monotonic: when it was sent and received on the monotonic clock, which
    ///   measure the round trip and anchor ``clock``; `now` for both when not given.
    @discardableResult
    func record(
        sent: Date, database: Date, received: Date, at now: ContinuousClock.Instant = .now,
        monotonic: (sent: ContinuousClock.Instant, received: ContinuousClock.Instant)? = nil
    ) -> Change? {
        let roundTrip: TimeInterval
        let midpointNanoseconds: Int64
        if let monotonic {
            let elapsed = max(.zero, monotonic.received - monotonic.sent)
            roundTrip = elapsed.inSeconds
            midpointNanoseconds = monotonicNanoseconds(monotonic.sent) + elapsed.nanoseconds / 2
        } else {
            roundTrip = max(0, received.timeIntervalSince(sent))
            midpointNanoseconds = monotonicNanoseconds(now)
        }
        let midpoint = sent.addingTimeInterval(roundTrip / 2)
        let databaseNanoseconds = Int64((database.timeIntervalSince1970 * 1e9).rounded())
        let sample = Sample(
            offset: database.timeIntervalSince(midpoint), roundTrip: roundTrip,
            databaseMinusMonotonic: databaseNanoseconds - midpointNanoseconds)
        return state.withLock { state -> Change? in
            state.samples.append(sample)
            if state.samples.count > Self.kept { state.samples.removeFirst(state.samples.count - Self.kept) }
            state.lastSample = now
            guard let chosen = state.samples.min(by: { $0.roundTrip < $1.roundTrip }) else { return nil }
            let estimate = chosen.offset
            anchorNanoseconds.store(chosen.databaseMinusMonotonic, ordering: .relaxed)
            estimateNanoseconds.store(Int64((estimate * 1e9).rounded()), ordering: .relaxed)
            if !state.reportedOff, abs(estimate) > Self.farOff {
                state.reportedOff = true
                return .off(estimate)
            }
            if state.reportedOff, abs(estimate) <= Self.backWithin {
                state.reportedOff = false
                return .right(estimate)
            }
            return nil
        }
    }

    /// "1.500 s behind" / "30.000 s ahead of": how `offset` (the database's clock minus this
    /// host's) reads before "the database's".
    static func describe(_ offset: TimeInterval) -> String {
        let seconds = String(format: "%.3f", abs(offset))
        return offset > 0 ? "\(seconds) s behind" : "\(seconds) s ahead of"
    }
}
