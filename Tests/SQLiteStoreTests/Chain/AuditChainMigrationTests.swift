import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

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
        guard
            case .prompted(let prompt, _) = try service.request(
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
}
