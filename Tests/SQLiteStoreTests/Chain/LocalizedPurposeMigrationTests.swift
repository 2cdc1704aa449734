import Foundation
import PermissionDomain
import StoreTestSupport
import TestSupport
import Testing

@testable import SQLiteStore

/// Migration 5 (localized purpose strings) on a database from before it: the audit chain keeps
/// every hash and verifies, old records read with no language, and new entries that carry a
/// language in `detail` chain on (the canonical encoding did not change).
@Suite struct LocalizedPurposeMigrationTests {
    let admin = Actor(keyId: "admin-1", role: "admin")
    let consent = Actor(keyId: "consent-1", role: "consent")

    @Test func anOlderDatabaseMigratesAndItsChainStillVerifies() throws {
        let fixture = try StoreFixture()
        let service = PermissionService(store: fixture.store, clock: ManualClock(epoch))
        let u1 = try user("u1"), u2 = try user("u2"), a = try app("com.example.scanner")
        let key = "NSCameraUsageDescription"
        _ = try service.putApp(id: a, name: "Scanner", purposeStrings: [key: try purpose("Scan.")], actor: admin, requestId: nil)
        _ = try service.setLocationServices(user: u1, enabled: false, actor: consent, requestId: nil)
        guard
            case .prompted(let old, _) = try service.request(
                user: u1, app: a, service: .camera, level: .full, actor: admin, requestId: nil)
        else {
            Issue.record("expected a prompt")
            return
        }
        _ = try service.decide(promptID: old.id, choice: "allow", actor: consent, requestId: nil)
        let before = try sqlite3(fixture.store.path, "SELECT group_concat(hash, ',') FROM (SELECT hash FROM audit ORDER BY seq)")

        // Turn the file back into one from before migration 5.
        _ = try sqlite3(
            fixture.store.path,
            """
            DROP TABLE app_localized_purpose_strings; ALTER TABLE user_settings DROP COLUMN locale;
            ALTER TABLE prompts DROP COLUMN purpose_language; ALTER TABLE authorizations DROP COLUMN purpose_language;
            DELETE FROM schema_migrations WHERE id = '5-localized-purpose-strings';
            """)
        let reopened = try SQLitePermissionStore.open(path: fixture.store.path, keyring: .forTests)
        #expect(
            try sqlite3(fixture.store.path, "SELECT count(*) FROM schema_migrations WHERE id = '5-localized-purpose-strings'")
                == "1")
        let after = try sqlite3(fixture.store.path, "SELECT group_concat(hash, ',') FROM (SELECT hash FROM audit ORDER BY seq)")
        #expect(after == before, "no entry was rehashed")
        #expect(try reopened.verifyAuditChain(batchSize: 2, progress: nil).isIntact)

        let migrated = PermissionService(store: reopened, clock: ManualClock(epoch + 1))
        #expect(try migrated.prompt(id: old.id).purposeLanguage == nil)
        #expect(try migrated.authorization(user: u1, app: a, service: .camera).purposeLanguage == nil)
        #expect(try migrated.userSettings(u1) == UserSettings(user: u1, locationServicesEnabled: false, updatedAt: epoch))

        // New entries with a language in detail chain on from the old ones.
        _ = try migrated.putApp(
            id: a, name: "Scanner", purposeStrings: [key: try purpose("Scan.")],
            localizedPurposeStrings: [try LanguageTag("de"): [key: try purpose("Scannen.")]], actor: admin, requestId: nil)
        _ = try migrated.putSettings(
            user: u2, locationServicesEnabled: true, locale: try LanguageTag("de"), actor: consent, requestId: nil)
        guard
            case .prompted(let german, _) = try migrated.request(
                user: u2, app: a, service: .camera, level: .full, actor: admin, requestId: nil)
        else {
            Issue.record("expected a prompt")
            return
        }
        #expect(german.purposeLanguage?.rawValue == "de")
        _ = try migrated.decide(promptID: german.id, choice: "allow", actor: consent, requestId: nil)
        let report = try reopened.verifyAuditChain(batchSize: 3, progress: nil)
        let last = try reopened.read { try $0.lastAuditSeq() }
        #expect(report.isIntact && report.totalEntries == last)
        #expect(try SQLitePermissionStore.verifyAuditChain(path: fixture.store.path, batchSize: 4) == report)
    }
}
