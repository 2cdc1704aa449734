import Foundation
import PermissionDomain
@testable import SQLiteStore
import Testing

/// Migration 3 backfills the chain of rows written before it, and decisions keep the hash of
/// the purpose string the user was shown.
@Suite struct AuditChainMigrationTests {
    let admin = Actor(keyId: "admin-1", role: "admin")
    let consent = Actor(keyId: "consent-1", role: "consent")
    let appActor = Actor(keyId: "app-1", role: "app")

    @Test func purposeHashIsThatOfTheShownPurposeAfterTheAppChangesIt() throws {
        let fixture = try StoreFixture()
        let service = PermissionService(store: fixture.store, clock: ManualClock(epoch))
        let u = try user("u1"), a = try app("com.example.scanner")
        let shown = "Scan documents — and receipts."
        _ = try service.putApp(
            id: a, name: "Scanner", purposeStrings: ["NSCameraUsageDescription": try purpose(shown)], actor: admin,
            requestId: nil)
        guard case .prompted(let prompt, _) = try service.request(
            user: u, app: a, service: .camera, level: .full, actor: appActor, requestId: nil)
        else {
            Issue.record("expected a prompt")
            return
        }
        _ = try service.putApp(
            id: a, name: "Scanner", purposeStrings: ["NSCameraUsageDescription": try purpose("Something else.")],
            actor: admin, requestId: nil)
        _ = try service.decide(promptID: prompt.id, choice: "allow", actor: consent, requestId: nil)

        let expected = try sha256sum(shown)
        let entries = try fixture.store.read { try $0.audit(query: AuditQuery(limit: 1_000)) }
        let decision = try #require(entries.last { $0.promptId == prompt.id && $0.to?.status == .authorized })
        #expect(decision.purpose?.rawValue == shown)
        #expect(decision.purposeHash == expected)
        let stored = try sqlite3(
            fixture.store.path,
            "SELECT purpose || '|' || purpose_hash FROM authorizations WHERE user = 'u1' AND service = 'camera'")
        #expect(stored == "\(shown)|\(expected)")
        #expect(try fixture.store.verifyAuditChain(batchSize: 100, progress: nil).isIntact)
    }

    @Test func migrationBackfillsTheSameChainInBatches() throws {
        let fixture = try StoreFixture()
        let service = PermissionService(store: fixture.store, clock: ManualClock(epoch))
        let a = try app("com.example.scanner")
        _ = try service.putApp(
            id: a, name: "Scanner", purposeStrings: ["NSCameraUsageDescription": try purpose("Scan documents.")],
            actor: admin, requestId: nil)
        for index in 0..<(PermissionSchema.backfillBatchSize / 2 + 10) {
            let outcome = try service.request(
                user: try user("u\(index)"), app: a, service: .camera, level: .full, actor: appActor, requestId: "r\(index)")
            if case .prompted(let prompt, _) = outcome {
                _ = try service.decide(promptID: prompt.id, choice: "allow", actor: consent, requestId: nil)
            }
        }
        let before = try sqlite3(fixture.store.path, "SELECT group_concat(hash, ',') FROM (SELECT hash FROM audit ORDER BY seq)")
        let total = try fixture.store.read { try $0.lastAuditSeq() }
        #expect(total > Int64(PermissionSchema.backfillBatchSize))

        // Turn the file back into one from before migration 3.
        _ = try sqlite3(fixture.store.path, """
            ALTER TABLE audit DROP COLUMN hash; ALTER TABLE audit DROP COLUMN prev_hash;
            ALTER TABLE audit DROP COLUMN purpose_hash; ALTER TABLE authorizations DROP COLUMN purpose_hash;
            DELETE FROM schema_migrations WHERE id = '3-audit-hash-chain';
            """)
        let steps = Collected<(Int64, Int64)>()
        let reopened = try SQLitePermissionStore.open(path: fixture.store.path) { _, done, total in
            steps.append((done, total))
        }
        let done = steps.elements.map(\.0)
        #expect(done.first == Int64(PermissionSchema.backfillBatchSize))
        #expect(done.last == total)
        #expect(done == done.sorted() && done.count == Int((total + 999) / 1_000))
        #expect(steps.elements.allSatisfy { $0.1 == total })
        let after = try sqlite3(fixture.store.path, "SELECT group_concat(hash, ',') FROM (SELECT hash FROM audit ORDER BY seq)")
        #expect(after == before)
        #expect(try sqlite3(fixture.store.path, "SELECT count(*) FROM authorizations WHERE purpose_hash IS NULL AND purpose IS NOT NULL") == "0")
        let report = try reopened.verifyAuditChain(batchSize: 333, progress: nil)
        #expect(report.isIntact)
        #expect(report.intactLength == total)
        // The append-only triggers are back.
        #expect(throws: (any Error).self) {
            _ = try sqlite3(fixture.store.path, "UPDATE audit SET action = 'x' WHERE seq = 1")
        }
    }
}
