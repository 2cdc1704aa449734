import Foundation
import Ownership
import PermissionDomain
import PostgresTestServer
import StoreTestSupport
import Synchronization
import TestThreads
import Testing

@testable import PostgresStore

/// Live: a replica that stalls while its write batch holds the chain head (a paused VM, a
/// `SIGSTOP`: the transaction sits idle) holds up the other replicas' writes for at most
/// ``PostgresPermissionStore/idleWriteTimeoutMilliseconds``, after which the database ends its
/// session and releases the head; the stalled batch runs once more when it wakes (its next
/// statement finds the session ended). A batch that
/// is long but never idle that long is not ended.
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct PostgresStalledWriterTests {
    private static let now = Date(millisecondsSince1970: 1_795_000_000_000)

    private static func entry(_ action: String) -> AuditEntry {
        AuditEntry(at: now, actor: .system, action: AuditAction(action))
    }

    private static func open(_ database: String) throws -> PostgresPermissionStore {
        try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 2)
    }

    @Test func aStalledWriterReleasesTheChainHeadWithinTheIdleTimeout() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let stalling = try Self.open(database)
        let other = try Self.open(database)
        let idle = Duration.milliseconds(PostgresPermissionStore.idleWriteTimeoutMilliseconds)
        // Longer than the lock timeout: without the idle timeout the other replica's write fails.
        let stall = Duration.milliseconds(PostgresPermissionStore.lockTimeoutMilliseconds) + .seconds(1)
        let attempts = Mutex(0)
        let holding = DispatchSemaphore(value: 0)
        let stalled = Mutex<Result<Int64, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result {
                try stalling.write { writer in
                    _ = try writer.append(Self.entry("test.stalled"))
                    if attempts.withLock({
                        $0 += 1
                        return $0
                    }) == 1 {
                        holding.signal()
                        Thread.sleep(forTimeInterval: stall.inSeconds)  // idle in the transaction, holding the head
                    }
                    return try writer.append(Self.entry("test.stalled"))
                }
            }
            stalled.withLock { $0 = result }
            finished.signal()
        }
        let base = try other.read { try $0.lastAuditSeq() }
        holding.wait()
        let started = ContinuousClock.now
        let seq = try other.write { try $0.append(Self.entry("test.other")) }
        let waited = ContinuousClock.now - started
        // Released by the database once idle that long, well before the other's lock timeout.
        #expect(waited >= idle - .milliseconds(300), "\(waited)")
        #expect(waited < idle + .seconds(2), "\(waited)")
        #expect(seq == base + 1)  // the stalled batch's entry was rolled back with its session
        // Awake again, the stalled batch finds its connection ended and runs once more, after it.
        finished.wait()
        let after = try #require(stalled.withLock { $0 }).get()
        #expect(after == base + 3)
        #expect(attempts.withLock { $0 } == 2)
        #expect(stalling.writeStatistics.retriedBatches == 1)
        #expect(try other.read { try $0.lastAuditSeq() } == base + 3)
    }

    /// A batch longer than the idle timeout, whose statements follow each other (one of them
    /// long itself), commits.
    @Test func aLongBatchThatIsNeverIdleThatLongCommits() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try Self.open(database)
        let idle = Double(PostgresPermissionStore.idleWriteTimeoutMilliseconds) / 1_000
        let started = ContinuousClock.now
        let last = try store.writer.write { session in
            try session.connection.execute("SELECT pg_sleep(\(idle + 0.5))")
            var seq: Int64 = 0
            let until = ContinuousClock.now + .seconds(idle + 0.5)
            while ContinuousClock.now < until {
                seq = try session.append(Self.entry("test.long"))
                Thread.sleep(forTimeInterval: 0.05)  // some work between statements
            }
            return seq
        }
        #expect(ContinuousClock.now - started > .seconds(2 * idle))
        #expect(last > 1)
        #expect(try store.read { try $0.lastAuditSeq() } == last)
        #expect(store.writeStatistics.retriedBatches == 0)
    }
}
