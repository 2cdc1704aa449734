import Foundation
import PermissionDomain
import TestSupport
import Testing

/// Erasure (SPEC §11, GDPR Art. 17) on both stores: everything stored about the user goes in
/// one write, the audit keeps its entries with the personal fields unreadable, the chain still
/// verifies, one `user.erased` entry names only the pseudonym, and the user starts afresh.
@Suite struct ErasureFlowTests {
    let admin = Actor(keyId: "k-admin", role: "admin")

    /// Gives `h.user` a grant, a pending prompt, settings, a policy and a consent session.
    func populate(_ h: Harness) throws {
        try h.grant(.camera, .full, .allow)
        _ = try h.prompt(.contacts, .full)
        _ = try h.service.setLocationServices(user: h.user, enabled: false, actor: h.consent, requestId: nil)
        _ = try h.service.putPolicy(
            id: PolicyID("deny-u42-photos"), service: .photos, app: nil, user: h.user, effect: .restrict, level: nil,
            actor: admin, requestId: nil)
        _ = try h.service.createConsentSession(
            id: ConsentSessionID("cs_00000000000000e1"), user: h.user, tokenHash: Array(repeating: 7, count: 32),
            actor: admin, requestId: nil)
        try h.grant(.camera, .full, .allow, user: Fixtures.otherUser)
    }

    @Test(arguments: StoreKind.allCases) func erasureDeletesEverythingAndKeepsTheChain(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try populate(h)
        let before = try h.auditLog()
        let about = before.filter { $0.user == h.user }
        #expect(about.count >= 6 && about.allSatisfy { $0.pseudonym != nil && !$0.personalDataErased })
        #expect(Set(about.compactMap(\.pseudonym)).count == 1, "one pseudonym per user")
        let pseudonym = try #require(about.first?.pseudonym)
        #expect(try h.service.audit(query: AuditQuery(user: h.user, limit: 1_000)).count == about.count)

        let erasure = try h.service.eraseUser(h.user, actor: admin, requestId: "req-erase")
        #expect(erasure.pseudonym == pseudonym)
        // The camera record (a request alone writes none), the answered and the pending prompt.
        #expect(erasure.authorizations == 1 && erasure.prompts == 2 && erasure.settings)
        #expect(erasure.policies == 1 && erasure.consentSessions == 1)

        // The user reads as never asked; the other user is untouched.
        #expect(try h.current(.camera).status == .notDetermined)
        #expect(try h.service.userSettings(h.user).locationServicesEnabled)
        #expect(try h.service.prompts(matching: PromptFilter(user: h.user), after: nil, limit: 10).items.isEmpty)
        #expect(throws: PermissionError.self) { try h.service.policy(id: PolicyID("deny-u42-photos")) }
        #expect(try h.current(.camera, user: Fixtures.otherUser).status == .authorized)

        // Every entry stays, the erased ones without their personal fields; one more names the pseudonym.
        let after = try h.auditLog()
        #expect(after.count == before.count + 1)
        for (old, new) in zip(before, after) {
            #expect(old.hash == new.hash && old.seq == new.seq)
            if old.user == h.user {
                #expect(new.user == nil && new.purpose == nil && new.personalDataErased && new.pseudonym == pseudonym)
                #expect(new.purposeHash == old.purposeHash && new.action == old.action && new.to == old.to)
            } else {
                #expect(new == old)
            }
        }
        let last = try #require(after.last)
        #expect(last.action == .userErased && last.user == nil && last.seq == erasure.seq)
        #expect(last.detail["pseudonym"] == pseudonym && last.detail["authorizations"] == "1")
        #expect(!last.detail.values.contains(h.user.rawValue) && last.requestId == "req-erase")
        #expect(try h.service.audit(query: AuditQuery(user: h.user, limit: 1_000)).isEmpty)
        let report = try h.fixture.store.verifyAuditChain(batchSize: 5, progress: nil)
        #expect(report.isIntact && report.totalEntries == Int64(after.count))

        // A later record starts a new key under a new pseudonym.
        try h.grant(.camera, .full, .allow)
        let fresh = try h.service.audit(query: AuditQuery(user: h.user, limit: 1_000))
        #expect(!fresh.isEmpty && fresh.allSatisfy { $0.user == h.user && $0.pseudonym != pseudonym })
        #expect(try h.fixture.store.verifyAuditChain(batchSize: 5, progress: nil).isIntact)
    }

    @Test(arguments: StoreKind.allCases) func erasingAUserWithNothingStoredWritesNothing(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let seq = try h.service.lastAuditSeq()
        #expect(throws: PermissionError.notFound(what: "user nobody")) {
            try h.service.eraseUser(UserID("nobody"), actor: admin, requestId: nil)
        }
        #expect(try h.service.lastAuditSeq() == seq)
        try populate(h)
        _ = try h.service.eraseUser(h.user, actor: admin, requestId: nil)
        let erased = try h.service.lastAuditSeq()
        #expect(throws: PermissionError.notFound(what: "user u42")) {
            try h.service.eraseUser(h.user, actor: admin, requestId: nil)
        }
        #expect(try h.service.lastAuditSeq() == erased)
    }

    /// SPEC §3: a (user, app, service)'s version never goes back. Erasure keeps nothing about
    /// the user, so the store's version floor does it: a record written after an erasure
    /// starts above every version an erased record held, and the floor never falls.
    @Test(arguments: StoreKind.allCases) func aRecordWrittenAfterItsUsersErasureStartsAboveItsOldVersion(
        _ kind: StoreKind
    ) throws {
        let h = try Harness(kind)
        let other = Fixtures.otherUser
        #expect(try h.grant(.camera, .full, .allow, user: other).version == 1, "no erasure yet: a new record starts at 1")
        try h.grant(.camera, .full, .allow)
        _ = try h.service.revoke(user: h.user, app: h.app, service: .camera, actor: h.consent, requestId: nil)
        let held = try h.service.setAuthorization(
            user: h.user, app: h.app, service: .camera, status: .authorized, level: .full, actor: h.consent,
            requestId: nil
        ).version
        #expect(held == 3)
        let before = try h.current(.camera)

        _ = try h.service.eraseUser(h.user, actor: admin, requestId: nil)
        #expect(try h.current(.camera).version == 0, "not stored: reads as never written")
        let again = try h.grant(.camera, .full, .allow)
        #expect(again.version == held + 1)
        #expect(again.status == before.status && again.etag != before.etag, "an If-Match of before cannot match again")
        #expect(try h.grant(.microphone, .full, .allow).version == held + 1, "every record not stored starts above it")
        // A record that is stored goes on from its own version.
        let revoked = try h.service.revoke(user: other, app: h.app, service: .camera, actor: h.consent, requestId: nil)
        #expect(revoked.version == 2)

        // Erasing a user whose records are below the floor leaves it where it is.
        _ = try h.service.eraseUser(other, actor: admin, requestId: nil)
        #expect(try h.grant(.camera, .full, .allow, user: other).version == held + 1)
        // Erasing one above it raises it.
        _ = try h.service.eraseUser(h.user, actor: admin, requestId: nil)
        #expect(try h.grant(.reminders, .full, .allow).version == held + 2)
    }

    /// A database whose users were erased before the version floor existed: their versions
    /// went with them, and no version was ever above the log's last seq, so the migration
    /// starts the floor there; without an erasure in the log it starts at 0.
    @Test(arguments: StoreKind.allCases) func theFloorOfADatabaseErasedBeforeItStartsAtTheLastSeq(
        _ kind: StoreKind
    ) throws {
        for erased in [true, false] {
            let h = try Harness(kind)
            try h.grant(.camera, .full, .allow)
            _ = try h.service.revoke(user: h.user, app: h.app, service: .camera, actor: h.consent, requestId: nil)
            try h.grant(.camera, .full, .allow, user: Fixtures.otherUser)
            if erased { _ = try h.service.eraseUser(h.user, actor: admin, requestId: nil) }
            let lastSeq = try h.service.lastAuditSeq()
            // Back to the schema before the floor; opening the store again migrates it.
            let migration = try h.fixture.migrationID(endingWith: "version-floor")
            let triggers =
                kind == .postgres
                ? "DROP FUNCTION version_floor_raised() CASCADE; DROP FUNCTION authorizations_above_version_floor() CASCADE;"
                : ""
            try h.fixture.execute(
                "\(triggers) DROP TABLE version_floor; DELETE FROM schema_migrations WHERE id = '\(migration)'")
            let again = PermissionService(store: try h.fixture.openAgain(), clock: h.clock)
            let prompt = try #require(
                try again.request(
                    user: h.user, app: h.app, service: .microphone, level: .full, actor: .anonymous, requestId: nil
                )
                .prompt)
            let granted = try again.decide(promptID: prompt.id, choice: "allow", actor: h.consent, requestId: nil)
            #expect(granted.authorization.version == (erased ? lastSeq + 1 : 1), "erased: \(erased)")
        }
    }

    @Test(arguments: StoreKind.allCases) func theStoredFormHoldsNoPersonalFieldInClear(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try populate(h)  // a policy named after the user too
        let entries = try h.auditLog().filter { $0.user == h.user }
        #expect(entries.contains { $0.detail["policy"] == "deny-u42-photos" }, "read back whole")
        let stored = try h.fixture.storedAuditRows()
        for row in stored where entries.contains(where: { $0.seq == row.seq }) {
            #expect(row.user?.hasPrefix("p_") == true && row.purpose == nil && row.detail == nil)
            // Sealed: `v1.` and base64 only, so no field is in it as text. (Not "does not contain
            // the user id": a short id turns up in random base64 now and then.)
            let personal = row.personal ?? ""
            #expect(personal.hasPrefix("v1.") && Data(base64Encoded: String(personal.dropFirst(3))) != nil, "\(personal)")
        }
        let clear = stored.flatMap { [$0.user, $0.purpose, $0.detail, $0.requestId, $0.actorKey] }.compactMap { $0 }
        #expect(!clear.contains { $0.contains(h.user.rawValue) }, "the user id is in no column in clear")
    }
}
