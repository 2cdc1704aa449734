import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

/// The domain's flows against each store.
@Suite struct PermissionServiceFlowTests {
    let admin = Actor(keyId: "admin-1", role: "admin")
    let consent = Actor(keyId: "consent-1", role: "consent")
    let appActor = Actor(keyId: "app-1", role: "app")

    private func makeService(_ fixture: StoreUnderTest, clock: ManualClock) -> PermissionService {
        PermissionService(store: fixture.store, clock: clock)
    }

    private func registerCameraApp(_ service: PermissionService, _ id: AppID) throws {
        _ = try service.putApp(
            id: id, name: "Camera App", purposeStrings: ["NSCameraUsageDescription": try purpose("Scan documents.")],
            actor: admin, requestId: "r-app")
    }

    private func auditSeqs(_ store: any PermissionStore) throws -> [Int64] {
        try store.read { try $0.audit(query: AuditQuery(limit: 100_000)) }.map(\.seq)
    }

    @Test(arguments: StoreKind.allCases) func requestPromptDecisionThenStatus(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let clock = ManualClock(epoch)
        let service = makeService(fixture, clock: clock)
        let u = try user("u42"), a = try app("com.example.scanner")
        try registerCameraApp(service, a)

        let first = try service.request(user: u, app: a, service: .camera, level: .full, actor: appActor, requestId: "r1")
        guard case .prompted(let prompt, let before) = first else {
            Issue.record("expected a prompt, got \(first)")
            return
        }
        #expect(before.status == .notDetermined)
        #expect(prompt.purpose.rawValue == "Scan documents.")
        // Asking again while the prompt is pending returns the same prompt.
        guard
            case .prompted(let again, _) = try service.request(
                user: u, app: a, service: .camera, level: .full, actor: appActor, requestId: "r2")
        else {
            Issue.record("expected the pending prompt")
            return
        }
        #expect(again.id == prompt.id)
        let pending = try fixture.store.read {
            try $0.prompts(matching: PromptFilter(user: u, state: .pending), after: nil, limit: 10)
        }
        #expect(pending.map(\.id) == [prompt.id])

        clock.advance(by: 5)
        let decision = try service.decide(promptID: prompt.id, choice: "allow", actor: consent, requestId: "r3")
        #expect(decision.prompt.state == .answered)
        #expect(decision.authorization.status == .authorized)

        let status = try service.authorization(user: u, app: a, service: .camera)
        #expect(status.status == .authorized)
        #expect(status.level == .full)
        #expect(status.reason == .userConsent)
        #expect(status.purpose?.rawValue == "Scan documents.")
        let stored = try fixture.store.read { try $0.authorization(user: u, app: a, service: .camera) }
        #expect(stored?.version == 1)
        #expect(try fixture.store.read { try $0.pendingPrompt(user: u, app: a, service: .camera) } == nil)
        // Decided: no new prompt.
        guard
            case .decided(let decided) = try service.request(
                user: u, app: a, service: .camera, level: .full, actor: appActor, requestId: "r4")
        else {
            Issue.record("expected no prompt after the decision")
            return
        }
        #expect(decided.status == .authorized)
        let actions = try fixture.store.read { try $0.audit(query: AuditQuery()) }.map(\.action)
        #expect(actions == [.appPut, .promptCreated, .promptAnswered])
        #expect(try auditSeqs(fixture.store) == [1, 2, 3])
    }

    @Test(arguments: StoreKind.allCases) func revokeDeniesAndVersionGrows(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let service = makeService(fixture, clock: ManualClock(epoch))
        let u = try user("u1"), a = try app("com.example.scanner")
        try registerCameraApp(service, a)
        let granted = try service.setAuthorization(
            user: u, app: a, service: .camera, status: .authorized, level: .full, actor: consent, requestId: nil)
        #expect(granted.status == .authorized)
        let revoked = try service.revoke(user: u, app: a, service: .camera, actor: consent, requestId: "rv")
        #expect(revoked.status == .denied)
        #expect(revoked.reason == .userSet)
        let stored = try fixture.store.read { try $0.authorization(user: u, app: a, service: .camera) }
        #expect(stored?.status == .denied)
        #expect(stored?.version == 2)
        let last = try fixture.store.read { try $0.audit(query: AuditQuery(action: .authorizationRevoked)) }
        #expect(last.count == 1)
        #expect(last.first?.from?.status == .authorized)
        #expect(last.first?.to?.status == .denied)
        #expect(last.first?.requestId == "rv")
    }

    @Test(arguments: StoreKind.allCases) func resetCountsMatchingRecordsAndCancelsPrompts(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let service = makeService(fixture, clock: ManualClock(epoch))
        let a = try app("com.example.scanner"), b = try app("com.example.other")
        try registerCameraApp(service, a)
        try registerCameraApp(service, b)
        for index in 0..<5 {
            _ = try service.setAuthorization(
                user: try user("u\(index)"), app: index < 3 ? a : b, service: .camera, status: .denied, level: nil,
                actor: consent, requestId: nil)
        }
        // One more user has only a pending prompt for app a.
        _ = try service.request(user: try user("u9"), app: a, service: .camera, level: .full, actor: appActor, requestId: nil)
        let count = try service.reset(scope: .service(.camera), app: a, user: nil, actor: admin, requestId: "reset-1")
        #expect(count == 4)  // three records of app a, and u9's cancelled prompt
        let records = try fixture.store.read {
            try $0.authorizations(matching: AuthorizationFilter(service: .camera), after: nil, limit: 100)
        }
        for record in records {
            #expect(record.app == a ? record.status == .notDetermined && record.reason == .reset : record.status == .denied)
            #expect(record.version == (record.app == a ? 2 : 1))
        }
        #expect(try fixture.store.read { try $0.pendingPrompt(user: try user("u9"), app: a, service: .camera) } == nil)
        #expect(try service.reset(scope: .all, app: a, user: nil, actor: admin, requestId: "reset-2") == 0)
        let seqs = try auditSeqs(fixture.store)
        #expect(seqs == Array(1...Int64(seqs.count)))
    }

    @Test(arguments: StoreKind.allCases) func auditSeqIsGapFreeAcrossConcurrentFlowsFromManyThreads(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let service = makeService(fixture, clock: ManualClock(epoch))
        let a = try app("com.example.scanner")
        try registerCameraApp(service, a)
        let failures = Collected<String>()
        let threads = 24
        onThreads(threads) { index in
            do {
                let u = try UserID("user-\(index)")
                let outcome = try service.request(
                    user: u, app: a, service: .camera, level: .full, actor: appActor, requestId: nil)
                if case .prompted(let prompt, _) = outcome {
                    _ = try service.decide(
                        promptID: prompt.id, choice: index % 2 == 0 ? "allow" : "deny", actor: consent, requestId: nil)
                }
                _ = try service.revoke(user: u, app: a, service: .camera, actor: consent, requestId: nil)
                // A refused change writes nothing: an unknown choice on an answered prompt.
                if case .prompted(let prompt, _) = outcome {
                    do {
                        _ = try service.decide(promptID: prompt.id, choice: "allow", actor: consent, requestId: nil)
                        failures.append("a second decision was accepted")
                    } catch is PermissionError {}
                }
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.elements.isEmpty)
        let entries = try fixture.store.read { try $0.audit(query: AuditQuery(limit: 100_000)) }
        #expect(entries.map(\.seq) == Array(1...Int64(entries.count)))
        // app.put, then per user: prompt.created, prompt.answered, authorization.revoked (after a
        // deny too: the reason changes from userConsent to userSet).
        #expect(entries.count == 1 + threads * 3)
        #expect(entries.filter { $0.action == .authorizationRevoked }.count == threads)
        #expect(try fixture.store.read { try $0.lastAuditSeq() } == Int64(entries.count))
        if let sqlite = fixture.sqlite {
            #expect(sqlite.pool.writer.currentStatistics.committedWrites >= threads * 3)
        }
    }
}
