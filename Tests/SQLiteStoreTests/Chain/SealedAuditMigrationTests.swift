import AuditKeys
import Foundation
import PermissionDomain
import StoreTestSupport
import TestSupport
import Testing

@testable import SQLiteStore

/// A log written before the hash chain (migration 3) and before personal fields were sealed
/// (migration 8): opening it backfills the chain in batches, then reseals every entry about a
/// user under that user's key and rehashes the chain, and records the old chain's head in one
/// `audit.resealed` entry, so a head published before stays provable.
@Suite struct SealedAuditMigrationTests {
    static let rows = PermissionSchema.backfillBatchSize + 234
    static let shown = "Scan documents."

    /// A file migrated up to migration 2, with `rows` audit entries written as that schema did.
    func oldDatabase(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.file("old.sqlite")
        let pool = try DatabasePool(path: path, configuration: .init())
        _ = try pool.writeWithoutTransaction { try Migrator(Array(PermissionSchema.migrations.migrations.prefix(2))).migrate($0) }
        pool.close()
        _ = try sqlite3(
            path,
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rows))
            INSERT INTO audit (seq, at, actor_key, actor_role, action, user, app, service, to_status, to_provisional,
                               to_once, reason, purpose)
            SELECT i, 1795000000000 + i, 'k-admin', 'admin', 'authorization.set',
                   CASE WHEN i % 5 = 0 THEN NULL ELSE 'user-' || (i % 7) END, 'com.example.scanner', 'camera',
                   'authorized', 0, 0, 'userConsent', CASE WHEN i % 5 = 0 THEN NULL ELSE '\(Self.shown)' END
            FROM n;
            """)
        return path
    }

    /// The head of the old rows' chain in the format before sealing, computed here.
    func oldHead() -> String {
        let chain = AuditChain.sha256V1
        var previous = AuditChain.genesis
        for i in 1...Int64(Self.rows) {
            let aboutUser = i % 5 != 0
            var record = AuditRecord(
                seq: i, at: 1_795_000_000_000 + i, actorKey: "k-admin", actorRole: "admin", action: "authorization.set",
                user: aboutUser ? "user-\(i % 7)" : nil, app: "com.example.scanner", service: "camera",
                toStatus: "authorized", toProvisional: 0, toOnce: 0, reason: "userConsent",
                purpose: aboutUser ? Self.shown : nil, purposeHash: aboutUser ? chain.purposeHash(of: Self.shown) : nil,
                prevHash: previous)
            previous = chain.hash(of: record)
            record.hash = previous
        }
        return previous
    }

    @Test func anOldLogIsResealedAndItsHeadRecorded() throws {
        let directory = try TemporaryDirectory()
        let path = try oldDatabase(directory)
        let steps = Collected<(String, Int64, Int64)>()
        let store = try SQLitePermissionStore.open(path: path, keyring: .forTests) { message, done, total in
            steps.append((message, done, total))
        }
        let total = Int64(Self.rows)
        for message in ["audit hash chain backfill", "audit resealing"] {
            let done = steps.elements.filter { $0.0 == message }.map(\.1)
            #expect(done.first == Int64(PermissionSchema.backfillBatchSize) && done.last == total, "\(message) in batches")
        }

        let entries = try store.read { try $0.audit(query: AuditQuery(limit: 10_000)) }
        #expect(entries.count == Self.rows + 1)
        let resealed = try #require(entries.last)
        #expect(resealed.action == .auditResealed && resealed.actor == .system && resealed.seq == total + 1)
        #expect(resealed.detail["previousHead"] == oldHead() && resealed.detail["previousSeq"] == String(total))
        #expect(resealed.detail["previousChainIntact"] == "true" && resealed.detail["previousFormat"] == "permission-audit-v1")

        // Entries read back as they were written; the file holds them sealed.
        let third = entries[2]
        #expect(third.user?.rawValue == "user-3" && third.purpose?.rawValue == Self.shown && third.pseudonym != nil)
        #expect(entries[4].user == nil && entries[4].pseudonym == nil, "an entry about no user is not sealed")
        #expect(try sqlite3(path, "SELECT count(*) FROM audit WHERE user LIKE 'user-%' OR purpose IS NOT NULL") == "0")
        #expect(try sqlite3(path, "SELECT count(*) FROM audit_subjects") == "7")
        #expect(try store.read { try $0.audit(query: AuditQuery(user: UserID("user-3"), limit: 10_000)) }.count == 141)

        let report = try store.verifyAuditChain(batchSize: 333, progress: nil)
        #expect(report.isIntact && report.intactLength == total + 1)
        #expect(try SQLitePermissionStore.verifyAuditChain(path: path, batchSize: 100) == report)
        let refused = #expect(throws: ToolFailure.self) {
            _ = try sqlite3(path, "UPDATE audit SET action = 'x' WHERE seq = 1")
        }
        #expect(refused?.message.contains("audit entries are never updated") == true, "\(String(describing: refused))")
    }

    @Test func aDatabaseOpensOnlyWithItsServerKey() throws {
        let fixture = try StoreFixture()
        let path = fixture.store.path
        #expect(throws: AuditKeyError.wrongServerKey) { _ = try SQLitePermissionStore.open(path: path, keyring: .random()) }
        #expect(throws: AuditKeyError.wrongServerKey) { _ = try SQLitePermissionStore.migrate(path: path, keyring: .random()) }
        _ = try SQLitePermissionStore.open(path: path, keyring: .forTests)
    }
}
