import Testing

@testable import PermissionAPI

/// While the database is down the sweeper fails every 250 ms: its log gets the first failure,
/// then one line every 30 s at most, and one line when it sweeps again (`RepeatedFailureLog`).
@Suite struct RepeatedFailureLogTests {
    static let start = ContinuousClock.now

    static func at(milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    @Test func anOutageOfOneMinuteAtFourFailuresASecondLogsThreeFailuresAndTheRecovery() {
        var log = RepeatedFailureLog(interval: .seconds(30))
        #expect(log.succeeded() == nil, "no failure, nothing to recover from")
        var lines: [(milliseconds: Int, unlogged: Int)] = []
        for milliseconds in stride(from: 0, through: 60_000, by: 250) {
            if let unlogged = log.failed(at: Self.at(milliseconds: milliseconds)) { lines.append((milliseconds, unlogged)) }
        }
        #expect(lines.map(\.milliseconds) == [0, 30_000, 60_000])
        #expect(lines.map(\.unlogged) == [0, 119, 119])
        #expect(log.succeeded() == 241)
        #expect(log.succeeded() == nil, "recovered once")
    }

    @Test func theNextOutageIsLoggedAtItsFirstFailure() {
        var log = RepeatedFailureLog(interval: .seconds(30))
        #expect(log.failed(at: Self.at(milliseconds: 0)) == 0)
        #expect(log.failed(at: Self.at(milliseconds: 250)) == nil)
        #expect(log.succeeded() == 2)
        // A second outage soon after: its first failure is news again.
        #expect(log.failed(at: Self.at(milliseconds: 1_000)) == 0)
        #expect(log.failed(at: Self.at(milliseconds: 30_999)) == nil)
        #expect(log.failed(at: Self.at(milliseconds: 31_000)) == 1)
    }
}
