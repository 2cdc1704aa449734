import Foundation
import PermissionDomain
import Synchronization
import TestSupport
import Testing

/// One scripted run of every kind of change through PermissionService on each store, with
/// the same clock and the same prompt ids: the records, the prompts and the whole audit log,
/// chain hashes included, come out identical.
@Suite struct SameResultsOnBothStoresTests {
    /// Prompt ids from a counter, so that both runs make the same ones.
    final class CountingPromptIDs: Sendable {
        private let issued = Atomic<Int>(0)

        func make(_ date: Date) -> PromptID {
            let number = issued.add(1, ordering: .relaxed).newValue
            return try! PromptID(String(format: "%012llx-%04d", date.millisecondsSince1970, number))
        }
    }

    /// What a run leaves behind.
    struct Outcome: Equatable {
        let records: [StoredAuthorization]
        let prompts: [Prompt]
        let policies: [Policy]
        let audit: [AuditEntry]
    }

    func run(_ kind: StoreKind) throws -> Outcome {
        let ids = CountingPromptIDs()
        let h = try Harness(kind, promptTTL: 60, onceTTL: 3600, makePromptID: { ids.make($0) })
        let admin = Actor(keyId: "admin-1", role: "admin")
        try h.grant(.camera, .full, .allow)
        try h.grant(.contacts, .full, .deny, user: Fixtures.otherUser)
        try h.grant(.location, .whenInUse, .allowOnce)
        _ = try h.prompt(.microphone, .full)
        h.clock.advance(by: 60)
        #expect(try h.service.sweep() == SweepResult(expiredPrompts: 1, lapsedGrants: 0))
        h.clock.advance(by: 3600)
        #expect(try h.service.sweep() == SweepResult(expiredPrompts: 0, lapsedGrants: 1))
        _ = try h.service.putPolicy(
            id: try PolicyID("kids"), service: .camera, app: nil, user: h.user, effect: .restrict, level: nil, actor: admin,
            requestId: "p1")
        _ = try h.service.putPolicy(
            id: try PolicyID("mdm"), service: .photos, app: h.app, user: nil, effect: .allow, level: .full, actor: admin,
            requestId: "p2")
        try h.service.deletePolicy(id: try PolicyID("kids"), actor: admin, requestId: "p3")
        _ = try h.service.setLocationServices(user: h.user, enabled: false, actor: h.consent, requestId: "s1")
        _ = try h.service.setLocationServices(user: h.user, enabled: true, actor: h.consent, requestId: "s2")
        try h.grant(.location, .always, .allowWhileUsing)
        let upgrade = try #require(
            try h.service.lifecycle(user: h.user, app: h.app, event: .backgroundLocationUsed, actor: h.consent, requestId: "l1")
                .prompt)
        _ = try h.service.decide(promptID: upgrade.id, choice: "changeToAlways", actor: h.consent, requestId: "d1")
        _ = try h.service.revoke(user: h.user, app: h.app, service: .camera, actor: h.consent, requestId: "r1")
        _ = try h.prompt(.calendars, .full)
        #expect(try h.service.reset(scope: .all, app: h.app, user: h.user, actor: admin, requestId: "x1") == 3)
        _ = try h.service.lifecycle(user: h.user, app: h.app, event: .reinstalled, actor: .anonymous, requestId: "l2")
        #expect(try h.fixture.store.verifyAuditChain(batchSize: 5, progress: nil).isIntact)
        return try h.fixture.store.read { reader in
            Outcome(
                records: try reader.authorizations(matching: AuthorizationFilter(), after: nil, limit: 1000),
                prompts: try reader.prompts(matching: PromptFilter(), after: nil, limit: 1000),
                policies: try reader.policies(after: nil, limit: 1000),
                audit: try reader.audit(query: AuditQuery(limit: 1000)))
        }
    }

    @Test func theSameRunLeavesTheSameRowsAndTheSameAuditLog() throws {
        let sqlite = try run(.sqlite)
        let postgres = try run(.postgres)
        #expect(sqlite.audit.count > 20)
        #expect(sqlite.records == postgres.records)
        #expect(sqlite.prompts == postgres.prompts)
        #expect(sqlite.policies == postgres.policies)
        #expect(sqlite.audit.map(\.action) == postgres.audit.map(\.action))
        for (left, right) in zip(sqlite.audit, postgres.audit) {
            #expect(left.withoutChainLinks == right.withoutChainLinks, "seq \(left.seq)")
            #expect((left.pseudonym == nil) == (right.pseudonym == nil), "seq \(left.seq): sealed on both or neither")
        }
    }
}
