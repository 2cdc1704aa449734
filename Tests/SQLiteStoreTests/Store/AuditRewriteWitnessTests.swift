import Foundation
import PermissionDomain
import Synchronization
import TestSupport
import Testing

@testable import SQLiteStore

/// The running writer is a witness of its own log: when another process commits, the entry it
/// wrote last is looked up, and one found gone or changed (the file edited around the
/// append-only triggers) is reported before the writer goes on from the file's last entry.
@Suite(.timeLimit(.minutes(1)), .blocksItsThread) struct AuditRewriteWitnessTests {
    private static let admin = Actor(keyId: "k-admin", role: "admin")

    private final class Reports: Sendable {
        let list = Mutex<[AuditChainRewrite]>([])
    }

    /// A store, a service on it, three entries, and the reports it makes.
    private struct Setup {
        let directory: TemporaryDirectory
        let store: SQLitePermissionStore
        let service: PermissionService
        let reports = Reports()

        init() throws {
            directory = try TemporaryDirectory()
            store = try SQLitePermissionStore.open(path: directory.file("p.sqlite"), keyring: .forTests)
            service = PermissionService(store: store, clock: ManualClock(Fixtures.t0))
            let reports = self.reports
            store.onAuditChainRewrite { rewrite in reports.list.withLock { $0.append(rewrite) } }
            for service in [ServiceID.camera, .microphone, .contacts] { try write(service) }
        }

        func write(_ serviceID: ServiceID) throws {
            _ = try service.setAuthorization(
                user: Fixtures.user, app: Fixtures.app, service: serviceID, status: .denied, level: nil,
                actor: AuditRewriteWitnessTests.admin, requestId: nil)
        }

        /// Runs `sql` on a connection of its own as one transaction: another process's commit,
        /// as the writer sees it. (As separate commits, the writer's check every 100 ms could
        /// fall between them, and see the log before the edit the test means it to see.)
        func elsewhere(_ sql: String) throws {
            let other = try Database(path: directory.file("p.sqlite"), mode: .readWrite)
            defer { other.close() }
            try other.execute("BEGIN IMMEDIATE;\n\(sql)\nCOMMIT;")
        }

        func lastEntry() throws -> (seq: Int64, hash: String) {
            let entries = try store.read { try $0.audit(query: AuditQuery(limit: 1000)) }
            let last = try #require(entries.last)
            return (last.seq, try #require(last.hash))
        }
    }

    @Test func deletingTheNewestEntryAroundTheTriggersIsReported() throws {
        let setup = try Setup()
        let known = try setup.lastEntry()
        #expect(known.seq == 3)
        try setup.elsewhere(
            """
            DROP TRIGGER audit_never_deleted;
            DELETE FROM audit WHERE seq = 3;
            CREATE TRIGGER audit_never_deleted BEFORE DELETE ON audit
                BEGIN SELECT RAISE(ABORT, 'audit entries are never deleted'); END;
            """)
        try setup.write(.photos)
        let reports = setup.reports.list.withLock { $0 }
        #expect(reports == [AuditChainRewrite(seq: 3, expectedHash: known.hash, foundHash: nil, lastSeq: 2)])
        #expect(setup.store.auditChainRewrites == 1)
        #expect(setup.store.metricsSnapshot().auditChainRewrites == 1)
        // The writer goes on from the file's last entry: the seq is taken again, the chain intact.
        #expect(try setup.lastEntry().seq == 3)
        #expect(try setup.store.verifyAuditChain(batchSize: 16, progress: nil).isIntact)
    }

    @Test func aChangedHashIsReported() throws {
        let setup = try Setup()
        let known = try setup.lastEntry()
        let forged = String(repeating: "0", count: 64)
        try setup.elsewhere(
            """
            DROP TRIGGER audit_never_updated;
            UPDATE audit SET hash = '\(forged)' WHERE seq = 3;
            CREATE TRIGGER audit_never_updated BEFORE UPDATE ON audit
                BEGIN SELECT RAISE(ABORT, 'audit entries are never updated'); END;
            """)
        try setup.write(.photos)
        // Found after the write that followed, which chained to the entry as it was (last seq 4),
        // or before it when the writer's periodic check came first (3).
        let reports = setup.reports.list.withLock { $0 }
        #expect(
            reports == [AuditChainRewrite(seq: 3, expectedHash: known.hash, foundHash: forged, lastSeq: 4)]
                || reports == [AuditChainRewrite(seq: 3, expectedHash: known.hash, foundHash: forged, lastSeq: 3)],
            "\(reports)")
        #expect(try !setup.store.verifyAuditChain(batchSize: 16, progress: nil).isIntact)
    }

    /// Another process's commit that leaves the log as it was (a subcommand, a table of its
    /// own) reports nothing.
    @Test func anotherCommitThatKeepsTheLogReportsNothing() throws {
        let setup = try Setup()
        try setup.elsewhere("CREATE TABLE scratch (x); DROP TABLE scratch;")
        try setup.write(.photos)
        #expect(setup.reports.list.withLock { $0 }.isEmpty)
        #expect(setup.store.auditChainRewrites == 0)
        #expect(try setup.lastEntry().seq == 4)
    }

    /// A foreign commit that leaves the log as it was (a checkpoint or a subcommand's own
    /// table) does not make the writer forget the entry it knows: a rewrite after it is still
    /// reported. It used to be forgotten when such a commit was noticed right after a write of
    /// its own, leaving the next rewrite unseen.
    @Test func aRewriteAfterAHarmlessForeignCommitIsStillReported() throws {
        let setup = try Setup()
        try setup.elsewhere("CREATE TABLE scratch (x); DROP TABLE scratch;")
        try setup.write(.photos)  // notices the harmless commit after its own
        #expect(setup.reports.list.withLock { $0 }.isEmpty)
        let known = try setup.lastEntry()
        #expect(known.seq == 4)
        let forged = String(repeating: "1", count: 64)
        try setup.elsewhere(
            """
            DROP TRIGGER audit_never_updated;
            UPDATE audit SET hash = '\(forged)' WHERE seq = 4;
            CREATE TRIGGER audit_never_updated BEFORE UPDATE ON audit
                BEGIN SELECT RAISE(ABORT, 'audit entries are never updated'); END;
            """)
        try setup.write(.location)
        let reports = setup.reports.list.withLock { $0 }
        #expect(reports.count == 1 && reports.first?.seq == 4 && reports.first?.foundHash == forged, "\(reports)")
        #expect(reports.first?.expectedHash == known.hash)
    }
}
