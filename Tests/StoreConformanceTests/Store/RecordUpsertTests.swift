import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

/// The rest of the round trips on both stores: empty and nil fields, dates to the
/// millisecond, API keys, and a second save of every record replacing the first.
@Suite struct RecordUpsertTests {
    let u1: UserID
    let maps: AppID

    init() throws {
        u1 = try user("u1")
        maps = try app("com.example.maps")
    }

    /// Every column of a record, the last ones added included (its purpose's key and language),
    /// comes back the same through every read that decodes one, beside settings with a locale.
    @Test(arguments: StoreKind.allCases) func everyColumnComesBackThroughEveryRead(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let full = StoredAuthorization(
            user: u1, app: maps, service: .location, status: .authorized, level: .always, provisional: true, once: false,
            expiresAt: Date(millisecondsSince1970: 1_795_000_600_000), reason: .userConsent,
            purpose: try purpose("Haltestellen in der Nähe."), purposeLanguage: try LanguageTag("de"),
            purposeKey: "NSLocationWhenInUseUsageDescription", declinedLevels: [.whenInUse], buttonConfirmed: true,
            updatedAt: Date(millisecondsSince1970: 1_795_000_000_000), version: 7)
        let settings = UserSettings(
            user: u1, locationServicesEnabled: false, locale: try LanguageTag("de-CH"),
            updatedAt: Date(millisecondsSince1970: 1_795_000_000_001))
        try fixture.store.write { writer in
            try writer.save(full)
            try writer.save(settings)
        }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.authorization(user: u1, app: maps, service: .location) == full)
            let both = try reader.authorizationAndSettings(user: u1, app: maps, service: .location, withSettings: true)
            #expect(both.stored == full && both.settings == settings)
            #expect(try reader.authorizations(matching: AuthorizationFilter(user: u1), after: nil, limit: 10) == [full])
            #expect(try reader.dueGrants(before: Date(millisecondsSince1970: 1_795_000_600_000), limit: 10) == [full])
        }
        if let sqlite = fixture.sqlite {
            let warm = try sqlite.pool.read { database in
                try StoreSession(database: database).authorizationsWithSettings(after: nil, limit: 10)
            }
            #expect(warm.count == 1 && warm.first?.stored == full && warm.first?.settings == settings)
        }
    }

    @Test(arguments: StoreKind.allCases) func emptyAndNilFieldsAndMillisecondsRoundTrip(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        // Every optional nil, every list empty, every flag false.
        let bare = StoredAuthorization(user: u1, app: maps, service: .camera)
        // Dates with sub-millisecond parts are kept to the millisecond, before and after 1970.
        let precise = StoredAuthorization(
            user: try user("u2"), app: maps, service: .location, status: .authorized, level: .whenInUse, provisional: false,
            once: true, expiresAt: Date(timeIntervalSince1970: 1_795_000_000.123_9), reason: .userConsent,
            purpose: try purpose("Ünïcødé, \"quotes\", back\\slash, 🗺️"), declinedLevels: [.always],
            updatedAt: Date(timeIntervalSince1970: -0.001), version: Int64.max)
        let saved = (bare, precise)
        try fixture.store.write { writer in
            try writer.save(saved.0)
            try writer.save(saved.1)
        }
        try fixture.store.read { (reader: any PermissionReader) throws in
            let back = try reader.authorization(user: bare.user, app: maps, service: .camera)
            #expect(back == bare)
            #expect(back?.updatedAt == nil && back?.expiresAt == nil && back?.purpose == nil && back?.declinedLevels == [])
            let exact = try reader.authorization(user: precise.user, app: maps, service: .location)
            #expect(exact == precise)
            #expect(exact?.expiresAt == Date(millisecondsSince1970: 1_795_000_000_123))
            #expect(exact?.version == Int64.max)
        }
        let nameless = App(trusted: try app("com.example.bare"), name: "B", purposeStrings: [:], updatedAt: epoch + 0.000_9)
        let quiet = UserSettings(user: u1)
        let scoped = try Policy(
            id: PolicyID("both"), service: .location, app: maps, user: u1, effect: .allow, level: .whenInUse, updatedAt: epoch)
        try fixture.store.write { writer in
            try writer.save(nameless)
            try writer.save(quiet)
            try writer.save(scoped)
        }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.app(nameless.id) == nameless)
            #expect(try reader.app(nameless.id)?.updatedAt == epoch)
            #expect(try reader.userSettings(self.u1) == quiet)
            #expect(try reader.policy(id: scoped.id) == scoped)
            #expect(try reader.app(try app("com.example.none")) == nil)
            #expect(try reader.service(.camera) == nil, "built-in services are never stored")
            #expect(try reader.policy(id: PolicyID("none")) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func apiKeysRoundTripInIDOrderAndASaveChangesOnlyNameAndRevocation(
        _ kind: StoreKind
    ) throws {
        let fixture = try kind.open()
        let admin = try APIKey(
            id: try KeyID("00000000000000ff"), role: .admin, app: nil, name: "Ops “admin”",
            secretHash: (0..<32).map { UInt8($0 * 7) }, createdAt: epoch + 0.000_5)
        let bound = try APIKey(
            id: try KeyID("0000000000000001"), role: .app, app: maps, name: "maps backend",
            secretHash: Array(repeating: 0xff, count: 32), createdAt: epoch)
        let auditor = try APIKey(
            id: try KeyID("a000000000000000"), role: .auditor, app: nil, name: "audit",
            secretHash: Array(repeating: 0, count: 32),
            createdAt: epoch, revokedAt: epoch + 1)
        try fixture.store.write { writer in for key in [admin, bound, auditor] { try writer.save(key) } }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.apiKeys() == [bound, admin, auditor])
            #expect(try reader.apiKey(id: admin.id) == admin)
            #expect(try reader.apiKey(id: admin.id)?.secretHash == admin.secretHash)
            #expect(try reader.apiKey(id: bound.id)?.app == maps)
            #expect(try reader.apiKey(id: KeyID("0000000000000002")) == nil)
        }
        var revoked = bound
        revoked.revokedAt = epoch + 60
        let revocation = revoked
        try fixture.store.write { try $0.save(revocation) }
        #expect(try fixture.store.read { try $0.apiKey(id: bound.id) } == revocation)
        #expect(try fixture.store.read { try $0.apiKeys() }.count == 3)
        // A key's identity never changes: saving it again takes only the name and revokedAt
        // (a revocation, a relabel), never another hash, role, app or creation time.
        let forged = try APIKey(
            id: bound.id, role: .admin, app: nil, name: "relabelled", secretHash: Array(repeating: 1, count: 32),
            createdAt: epoch + 5, revokedAt: epoch + 61)
        try fixture.store.write { try $0.save(forged) }
        let kept = try #require(try fixture.store.read { try $0.apiKey(id: bound.id) })
        #expect(kept.secretHash == bound.secretHash && kept.role == .app && kept.app == maps && kept.createdAt == epoch)
        #expect(kept.name == "relabelled" && kept.revokedAt == epoch + 61)
    }

    @Test(arguments: StoreKind.allCases) func aSecondSaveReplacesEveryKindOfRecord(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let (u1, maps) = (u1, maps)
        let fitness = try service("fitness")
        let first = (
            App(trusted: maps, name: "Maps", purposeStrings: ["A": try purpose("a"), "B": try purpose("b")], updatedAt: epoch),
            try ServiceDefinition(
                id: fitness, levels: [.limited, .full], purposeKeys: [["L"], ["L", "F"]], specials: [.userSelectedItems]),
            try Policy(id: PolicyID("p"), service: .camera, app: maps, user: nil, effect: .allow, level: .full, updatedAt: epoch),
            UserSettings(user: u1, locationServicesEnabled: false, updatedAt: epoch),
            Prompt(
                id: try PromptID("p1"), user: u1, app: maps, service: .camera, kind: .request, requestedLevel: .full,
                options: [.allow, .deny], purpose: try purpose("Scan."), purposeKey: "NSCameraUsageDescription", state: .pending,
                createdAt: epoch, expiresAt: epoch + 600),
            StoredAuthorization(
                user: u1, app: maps, service: .location, status: .authorized, level: .always, provisional: true,
                reason: .userConsent, purpose: try purpose("Nearby."), declinedLevels: [.whenInUse], updatedAt: epoch, version: 1)
        )
        let second = (
            App(trusted: maps, name: "Maps 2", purposeStrings: ["C": try purpose("c")], updatedAt: epoch + 1),
            try ServiceDefinition(id: fitness, levels: [.full], purposeKeys: [["F2"]]),
            try Policy(
                id: PolicyID("p"), service: .contacts, app: nil, user: u1, effect: .restrict, level: nil, updatedAt: epoch + 1),
            UserSettings(user: u1, locationServicesEnabled: true, updatedAt: epoch + 1),
            Prompt(
                id: try PromptID("p1"), user: u1, app: maps, service: .camera, kind: .request, requestedLevel: .full,
                options: [.allow, .deny], purpose: try purpose("Scan."), purposeKey: "NSCameraUsageDescription",
                state: .cancelled,
                createdAt: epoch, expiresAt: epoch + 600, endedAt: epoch + 2),
            StoredAuthorization(
                user: u1, app: maps, service: .location, status: .notDetermined, reason: .reset, updatedAt: epoch + 1, version: 2)
        )
        for records in [first, second] {
            try fixture.store.write { writer in
                try writer.save(records.0)
                try writer.save(records.1)
                try writer.save(records.2)
                try writer.save(records.3)
                try writer.save(records.4)
                try writer.save(records.5)
            }
        }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.app(maps) == second.0)
            #expect(try reader.apps(after: nil, limit: 10) == [second.0])
            #expect(try reader.service(fitness) == second.1)
            #expect(try reader.services() == [second.1])
            #expect(try reader.policy(id: second.2.id) == second.2)
            #expect(try reader.policies(service: .camera, app: maps, user: u1) == [])
            #expect(try reader.policies(service: .contacts, app: maps, user: u1) == [second.2])
            #expect(try reader.userSettings(u1) == second.3)
            #expect(try reader.prompt(id: second.4.id) == second.4)
            #expect(try reader.pendingPrompt(user: u1, app: maps, service: .camera) == nil)
            #expect(try reader.prompts(matching: PromptFilter(), after: nil, limit: 10) == [second.4])
            #expect(try reader.authorization(user: u1, app: maps, service: .location) == second.5)
        }
    }
}
