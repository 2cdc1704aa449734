import PermissionDomain
import Testing

/// Which audit entries change what a read model keeps in memory (``ReadModelChanges``), and the
/// check that a write audited everything it changed.
@Suite struct ReadModelChangesTests {
    private func entry(
        _ seq: Int64, _ action: AuditAction, user: String? = nil, app: String? = nil, service: String? = nil
    )
        -> ChangeLogEntry
    {
        ChangeLogEntry(
            seq: seq, action: action, user: user.map { UserID(trusted: $0) }, app: app.map { AppID(trusted: $0) },
            service: service.map { ServiceID(trusted: $0) })
    }

    private func key(_ user: String, _ app: String, _ service: String) -> AuthorizationKey {
        AuthorizationKey(user: UserID(trusted: user), app: AppID(trusted: app), service: ServiceID(trusted: service))
    }

    /// An entry read after its user's erasure names no user, and what it changed cannot be told:
    /// everything in memory is forgotten, as the erasure's own entry (perhaps not read yet) would.
    @Test func anEntryOfAnErasedUserIsEverything() {
        for action in [AuditAction.authorizationSet, .settingsChanged, .promptAnswered] {
            var changes = ReadModelChanges()
            changes.add(
                ChangeLogEntry(seq: 3, action: action, user: nil, app: AppID(trusted: "com.a"), service: nil, userErased: true))
            #expect(changes.everything && !changes.erasure && changes.through == 3, "\(action)")
        }
        var untouched = ReadModelChanges()
        untouched.add(ChangeLogEntry(seq: 3, action: .authorizationSet, user: nil, app: nil, service: nil))
        #expect(!untouched.everything)
    }

    @Test func eachActionChangesWhatItNames() {
        let changes = ReadModelChanges([
            entry(4, .authorizationSet, user: "u1", app: "com.a", service: "camera"),
            entry(5, .settingsChanged, user: "u2"),
            entry(6, .appPut, app: "com.a"),
            entry(7, .promptAnswered, user: "u3", app: "com.b", service: "location"),
            entry(8, .authorizationReconsent, user: "u4", app: "com.a", service: "camera"),
        ])
        #expect(
            changes.records == [
                key("u1", "com.a", "camera"), key("u3", "com.b", "location"), key("u4", "com.a", "camera"),
            ])
        #expect(changes.settingsOf == [UserID(trusted: "u2")])
        #expect(changes.apps == [AppID(trusted: "com.a")], "an app's purpose strings are kept for purposeChanged")
        #expect(!changes.catalogueChanged && !changes.keysChanged)
        #expect(changes.through == 8)
        for action in [AuditAction.policyPut, .policyDeleted, .servicePut] {
            #expect(ReadModelChanges([entry(1, action)]).catalogueChanged, "\(action)")
        }
        for action in [AuditAction.keyCreated, .keyRevoked] {
            #expect(ReadModelChanges([entry(1, action)]).keysChanged, "\(action)")
        }
        #expect(!ReadModelChanges([entry(1, .appPut, app: "com.a")]).isEmpty)
        #expect(ReadModelChanges().through == 0)
    }

    @Test func aWriteThatAuditedEverythingPassesAndOneThatDidNotIsNamed() {
        var saved = ReadModelChanges()
        saved.records = [key("u1", "com.a", "camera"), key("u1", "com.a", "location")]
        saved.settingsOf = [UserID(trusted: "u1")]
        saved.catalogueChanged = true
        let everything = ReadModelChanges([
            entry(1, .authorizationSet, user: "u1", app: "com.a", service: "camera"),
            entry(2, .authorizationReset, user: "u1", app: "com.a", service: "location"),
            entry(3, .settingsChanged, user: "u1"),
            entry(4, .policyPut),
        ])
        #expect(ReadModelChanges.unaudited(saved: saved, appended: everything).isEmpty)
        let partly = ReadModelChanges([entry(1, .authorizationSet, user: "u1", app: "com.a", service: "camera")])
        #expect(
            ReadModelChanges.unaudited(saved: saved, appended: partly)
                == ["authorization u1/com.a/location", "settings of u1", "a service or policy"])
    }

    @Test func anAppSavedWithoutItsAppPutEntryIsNamed() {
        var saved = ReadModelChanges()
        saved.apps = [AppID(trusted: "com.a")]
        #expect(ReadModelChanges.unaudited(saved: saved, appended: ReadModelChanges()) == ["app com.a"])
        #expect(ReadModelChanges.unaudited(saved: saved, appended: ReadModelChanges([entry(1, .appPut, app: "com.a")])).isEmpty)
    }

    /// A long run names at most so many records and users; beyond, it is everything.
    @Test func aRunPastTheLimitIsEverything() throws {
        var changes = ReadModelChanges()
        for index in 0..<5 {
            changes.add(
                ChangeLogEntry(
                    seq: Int64(index + 1), action: .authorizationSet, user: try UserID("u\(index)"),
                    app: try AppID("com.example.a"), service: .camera),
                namingAtMost: 4)
            #expect(changes.everything == (index == 4) && changes.records.count == (index == 4 ? 0 : index + 1))
        }
        changes.add(ChangeLogEntry(seq: 6, action: .keyCreated, user: nil, app: nil, service: nil), namingAtMost: 4)
        #expect(changes.everything && changes.keysChanged && changes.through == 6 && changes.records.isEmpty)
    }
}
