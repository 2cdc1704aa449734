import Foundation
import PermissionDomain
import PostgresTestServer
import Synchronization
import TestThreads
import Testing

@testable import PostgresStore

/// Replicas keep the database's time (``PostgresClockOffset``): the estimate from the samples,
/// what the log is told, and, live, a replica on a host whose clock runs 30 s fast that neither
/// ends another replica's grant early nor dates anything in the future.
@Suite struct PostgresClockOffsetTests {
    /// The system's clock moved by `shift` seconds: a host whose clock is wrong.
    private struct ShiftedClock: Clock {
        let shift: TimeInterval
        var now: Date { Date().addingTimeInterval(shift) }
    }

    @Test func theEstimateIsTheSampleOfTheShortestRoundTripAndFarOffsetsAreToldOnce() throws {
        func near(_ change: PostgresClockOffset.Change?, _ expected: PostgresClockOffset.Change) -> Bool {
            switch (change, expected) {
            case (.off(let a)?, .off(let b)), (.right(let a)?, .right(let b)): abs(a - b) < 1e-6
            default: false
            }
        }
        let offset = PostgresClockOffset()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(offset.estimate == nil)
        // 2.0 s off over a 200 ms round trip, then 2.5 s over a 10 ms one: the shorter wins.
        #expect(near(offset.record(sent: t0, database: t0 + 2.1, received: t0 + 0.2), .off(2.0)))
        #expect(offset.record(sent: t0 + 1, database: t0 + 3.505, received: t0 + 1.01) == nil, "told once")
        #expect(abs(try #require(offset.estimate) - 2.5) < 1e-6)
        // A sample of a shorter round trip, 0.1 s off: back within half a second, told once.
        let sent = t0 + 2
        #expect(near(offset.record(sent: sent, database: sent + 0.1, received: sent + 0.001), .right(0.0995)))
        #expect(offset.record(sent: sent + 1, database: sent + 1.1, received: sent + 1.001) == nil)
        #expect(PostgresClockOffset.describe(30) == "30.000 s behind")
        #expect(PostgresClockOffset.describe(-1.5) == "1.500 s ahead of")
    }

    /// A host clock that can be stepped, as NTP steps it.
    private final class SteppedClock: Clock, Sendable {
        let shift = Mutex<TimeInterval>(0)
        var now: Date { Date().addingTimeInterval(shift.withLock { $0 }) }
    }

    /// A step of the host's clock between samples moves neither the time kept nor what it
    /// decides: it runs on from the last sample by the monotonic clock. The estimate (what
    /// the log and the metric say of the host's clock) follows the samples.
    @Test func aStepOfTheHostsClockDoesNotMoveTheTimeKept() throws {
        let host = SteppedClock()
        let offset = PostgresClockOffset(hostClock: host)
        #expect(abs(offset.clock.now.timeIntervalSinceNow) < 0.1, "the host's before any sample")
        // The database's clock is this machine's real one; the host's is right at first.
        let sentMonotonic = ContinuousClock.now
        let sent = host.now
        let database = Date()
        offset.record(
            sent: sent, database: database, received: host.now, at: .now, monotonic: (sentMonotonic, ContinuousClock.now))
        #expect(abs(try #require(offset.estimate)) < 0.1)
        host.shift.withLock { $0 = 30 }
        #expect(abs(offset.clock.now.timeIntervalSinceNow) < 0.1, "kept: \(offset.clock.now.timeIntervalSinceNow) s")
        Thread.sleep(forTimeInterval: 0.2)
        #expect(abs(offset.clock.now.timeIntervalSinceNow) < 0.1, "and runs on with real time")
        // The next sample sees the host 30 s fast; the time kept stays the database's.
        let sentAgain = ContinuousClock.now
        let hostSent = host.now
        offset.record(
            sent: hostSent, database: Date(), received: host.now, at: .now, monotonic: (sentAgain, ContinuousClock.now))
        #expect(abs(offset.clock.now.timeIntervalSinceNow) < 0.1)
    }

    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aReplicaOnAFastHostKeepsTheDatabasesTime() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let reports = Mutex<[String]>([])
        let right = try PostgresPermissionStore.open(
            connectionString: database, keyring: .forTests, poolSize: 2, readModel: .init(cacheEntries: 100))
        let fast = try PostgresPermissionStore.open(
            connectionString: database, keyring: .forTests, poolSize: 2,
            readModel: .init(cacheEntries: 100, hostClock: ShiftedClock(shift: 30)) { message, failed in
                if failed { reports.withLock { $0.append(message) } }
            })
        let rightOffset = try #require(right.clockOffset?.estimate)
        let fastOffset = try #require(fast.clockOffset?.estimate)
        #expect(abs(rightOffset) < 0.5, "one host: \(rightOffset)")
        #expect(abs(fastOffset + 30) < 0.5, "30 s fast: \(fastOffset)")
        let fastClock = try #require(fast.clockOffset?.clock)
        #expect(abs(fastClock.now.timeIntervalSinceNow) < 0.5, "the database's time, not the host's")
        #expect(
            reports.withLock { $0 }.contains {
                $0.hasPrefix("this host's clock is ") && $0.contains(" s ahead of the database's")
            },
            "\(reports.withLock { $0 })")

        let app = AppID(trusted: "com.example.scanner")
        let user = UserID(trusted: "u1")
        let one = PermissionService(store: right, clock: try #require(right.clockOffset?.clock))
        let other = PermissionService(store: fast, clock: fastClock)
        _ = try one.putApp(
            id: app, name: "Scanner", purposeStrings: ["NSCameraUsageDescription": PurposeString(trusted: "Scan.")],
            actor: .anonymous, requestId: nil)
        let until = Date().addingTimeInterval(10)
        let granted = try one.setAuthorization(
            user: user, app: app, service: .camera, status: .authorized, level: .full, until: until, actor: .anonymous,
            requestId: nil)
        #expect(granted.status == .authorized)
        #expect(try fast.awaitRevision(try right.visibleRevision(), timeout: .seconds(5)))
        // The fast replica's sweep does not end it 30 s early, and its reads still show it.
        #expect(try other.sweep().lapsedGrants == 0)
        #expect(try other.authorization(user: user, app: app, service: .camera).status == .authorized)
        // What it writes is dated on the database's time.
        let changed = try other.setAuthorization(
            user: user, app: app, service: .camera, status: .denied, level: nil, actor: .anonymous, requestId: nil)
        #expect(abs((changed.updatedAt ?? .distantPast).timeIntervalSinceNow) < 1, "\(String(describing: changed.updatedAt))")
    }
}
