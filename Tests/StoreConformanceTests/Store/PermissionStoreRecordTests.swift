import Foundation
import PermissionDomain
import TestSupport
import Testing

/// Each record round-trips through both stores exactly, and saving again replaces it.
@Suite struct PermissionStoreRecordTests {
    @Test(arguments: StoreKind.allCases) func authorizationRoundTripsEveryField(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let record = StoredAuthorization(
            user: try user("u42"), app: try app("com.example.maps"), service: .location, status: .authorized,
            level: .always, provisional: true, once: true, expiresAt: epoch.addingTimeInterval(3600), reason: .userConsent,
            purpose: try purpose("Shows nearby stops. ✓"), declinedLevels: [.always, .whenInUse], buttonConfirmed: true,
            updatedAt: epoch, version: 3)
        let saved = record
        try fixture.store.write { try $0.save(saved) }
        let back = try fixture.store.read { try $0.authorization(user: record.user, app: record.app, service: .location) }
        #expect(back == record)
        let missing = try fixture.store.read { try $0.authorization(user: record.user, app: record.app, service: .camera) }
        #expect(missing == nil)
    }

    @Test(arguments: StoreKind.allCases) func versionNeverGoesBack(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        var record = StoredAuthorization(
            user: try user("u1"), app: try app("com.a.b"), service: .camera, status: .denied,
            reason: .userSet, updatedAt: epoch, version: 2)
        let first = record
        try fixture.store.write { try $0.save(first) }
        record.status = .notDetermined
        record.reason = .reset
        let stale = record
        let error = #expect(throws: (any Error).self) { try fixture.store.write { try $0.save(stale) } }
        #expect(StoreUnderTest.message(of: error)?.contains("version must grow") == true, "\(String(describing: error))")
        record.version = 3
        let next = record
        try fixture.store.write { try $0.save(next) }
        #expect(try fixture.store.read { try $0.authorization(user: next.user, app: next.app, service: .camera) }?.version == 3)
    }

    @Test(arguments: StoreKind.allCases) func authorizationListingsFilterAndPageByKeyset(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let users = try (0..<5).map { try user("u\($0)") }
        let apps = try [app("com.a.one"), app("com.a.two")]
        let services: [ServiceID] = [.camera, .location]
        var all: [StoredAuthorization] = []
        for user in users {
            for app in apps {
                for service in services {
                    let status: AuthorizationStatus = (all.count % 3 == 0) ? .authorized : .denied
                    all.append(
                        StoredAuthorization(
                            user: user, app: app, service: service, status: status,
                            level: status == .authorized ? .whenInUse : nil, reason: .userSet,
                            updatedAt: epoch, version: 1))
                }
            }
        }
        let records = all
        try fixture.store.write { writer in for record in records { try writer.save(record) } }

        func pages(_ filter: AuthorizationFilter, limit: Int) throws -> [StoredAuthorization] {
            var collected: [StoredAuthorization] = []
            var cursor: AuthorizationKey?
            while true {
                let page = try fixture.store.read { try $0.authorizations(matching: filter, after: cursor, limit: limit) }
                #expect(page.count <= limit)
                collected += page
                guard page.count == limit, let last = page.last else { return collected }
                cursor = last.key
            }
        }
        let filters = [
            AuthorizationFilter(), AuthorizationFilter(user: users[2]), AuthorizationFilter(app: apps[1]),
            AuthorizationFilter(app: apps[0], service: .camera),
            AuthorizationFilter(app: apps[0], service: .camera, status: .denied),
            AuthorizationFilter(service: .location), AuthorizationFilter(status: .authorized),
            AuthorizationFilter(user: users[1], app: apps[1], service: .location),
        ]
        for filter in filters {
            let expected = records.filter(filter.matches).sorted { $0.key < $1.key }
            #expect(try pages(filter, limit: 3) == expected, "filter \(filter)")
            #expect(try pages(filter, limit: 100) == expected, "filter \(filter)")
        }
    }

    @Test(arguments: StoreKind.allCases) func dueGrantsAreOrderedByExpiry(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let u = try user("u1")
        let apps = try (0..<5).map { try app("com.once.a\($0)") }
        try fixture.store.write { writer in
            for (index, app) in apps.enumerated() {
                // a0-a2: Allow Once; a3: an expiring grant (SPEC §11); a4: a grant without an end.
                try writer.save(
                    StoredAuthorization(
                        user: u, app: app, service: .location, status: .authorized, level: .whenInUse, once: index < 3,
                        expiresAt: index == 4 ? nil : epoch.addingTimeInterval(Double(10 - index)), reason: .userConsent,
                        updatedAt: epoch, version: 1))
            }
        }
        let due = try fixture.store.read { try $0.dueGrants(before: epoch.addingTimeInterval(9), limit: 10) }
        #expect(due.map(\.app) == [apps[3], apps[2], apps[1]])
        #expect(
            try fixture.store.read { try $0.dueGrants(before: epoch.addingTimeInterval(100), limit: 1) }.map(\.app) == [apps[3]])
        #expect(
            try fixture.store.read { try $0.dueGrants(before: .distantFuture, limit: 10) }.map(\.app)
                == Array(apps[0..<4].reversed()))
    }

    @Test(arguments: StoreKind.allCases) func appsServicesPoliciesAndSettingsRoundTrip(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let maps = App(
            trusted: try app("com.example.maps"), name: "Maps \"quoted\"",
            purposeStrings: [
                "NSCameraUsageDescription": try purpose("Scan codes."),
                "NSLocationWhenInUseUsageDescription": try purpose("Nearby stops."),
            ], developmentLanguage: try LanguageTag("en-GB"), version: "2.1", updatedAt: epoch)
        let custom = try ServiceDefinition(
            id: try service("fitnessData"), levels: [.limited, .full],
            purposeKeys: [["NSFitnessLimited"], ["NSFitnessLimited", "NSFitnessFull"]],
            specials: [.userSelectedItems])
        let u42 = try user("u42")
        let restrict = try Policy(
            id: PolicyID("p-restrict"), service: .camera, app: nil, user: u42, effect: .restrict,
            level: nil, updatedAt: epoch)
        let allow = try Policy(
            id: PolicyID("p-allow"), service: .camera, app: maps.id, user: nil, effect: .allow,
            level: .full, updatedAt: epoch)
        let other = try Policy(
            id: PolicyID("p-other"), service: .camera, app: try app("com.other.app"), user: nil,
            effect: .restrict, level: nil, updatedAt: epoch)
        let settings = UserSettings(user: u42, locationServicesEnabled: false, updatedAt: epoch)
        try fixture.store.write { writer in
            try writer.save(maps)
            try writer.save(custom)
            for policy in [restrict, allow, other] { try writer.save(policy) }
            try writer.save(settings)
        }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.app(maps.id) == maps)
            #expect(try reader.apps(after: nil, limit: 10) == [maps])
            #expect(try reader.apps(after: maps.id, limit: 10) == [])
            #expect(try reader.service(custom.id) == custom)
            #expect(try reader.services() == [custom])
            #expect(try reader.policy(id: allow.id) == allow)
            #expect(try reader.policies(after: nil, limit: 2) == [allow, other])
            #expect(try reader.policies(after: other.id, limit: 2) == [restrict])
            let applying = try reader.policies(service: .camera, app: maps.id, user: u42)
            #expect(Set(applying) == [restrict, allow])
            #expect(try reader.policies(service: .camera, app: maps.id, user: try user("u7")) == [allow])
            #expect(try reader.userSettings(u42) == settings)
            #expect(try reader.userSettings(try user("nobody")) == nil)
        }
        // Saving again replaces the purpose strings and levels entirely, the development language too.
        let renamed = App(trusted: maps.id, name: "Maps 2", purposeStrings: [:], updatedAt: epoch.addingTimeInterval(1))
        let deleted = try fixture.store.write { writer -> Bool in
            try writer.save(renamed)
            return try writer.deletePolicy(id: allow.id)
        }
        #expect(deleted)
        #expect(try fixture.store.write { try $0.deletePolicy(id: allow.id) } == false)
        #expect(try fixture.store.read { try $0.app(maps.id) } == renamed)
        #expect(try fixture.store.read { try $0.policy(id: allow.id) } == nil)
    }

    private func prompt(
        _ id: String, _ u: UserID, _ a: AppID, _ s: ServiceID, state: PromptState, expiresIn: Double
    ) throws -> Prompt {
        Prompt(
            id: try PromptID(id), user: u, app: a, service: s, kind: .request, requestedLevel: .whenInUse,
            options: [.allowOnce, .allowWhileUsing, .deny], purpose: try purpose("Nearby stops."),
            purposeKey: "NSLocationWhenInUseUsageDescription", state: state, createdAt: epoch,
            expiresAt: epoch.addingTimeInterval(expiresIn), endedAt: state == .pending ? nil : epoch,
            choice: state == .answered ? .allowWhileUsing : nil)
    }

    @Test(arguments: StoreKind.allCases) func promptsRoundTripAndAtMostOneIsPendingPerAuthorization(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let u1 = try user("u1"), u2 = try user("u2"), maps = try app("com.example.maps")
        let p1 = try prompt("0001", u1, maps, .location, state: .answered, expiresIn: 600)
        let p2 = try prompt("0002", u1, maps, .location, state: .pending, expiresIn: 30)
        let p3 = try prompt("0003", u1, maps, .camera, state: .pending, expiresIn: 10)
        let p4 = try prompt("0004", u2, maps, .location, state: .pending, expiresIn: 600)
        try fixture.store.write { writer in for p in [p1, p2, p3, p4] { try writer.save(p) } }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.prompt(id: p1.id) == p1)
            #expect(try reader.pendingPrompt(user: u1, app: maps, service: .location) == p2)
            #expect(try reader.prompts(matching: PromptFilter(user: u1, state: .pending), after: nil, limit: 10) == [p2, p3])
            #expect(try reader.prompts(matching: PromptFilter(user: u1), after: p1.id, limit: 1) == [p2])
            #expect(
                try reader.prompts(matching: PromptFilter(app: maps, service: .location), after: nil, limit: 10) == [p1, p2, p4])
            #expect(try reader.duePrompts(before: epoch.addingTimeInterval(60), limit: 10) == [p3, p2])
        }
        let duplicate = try prompt("0005", u1, maps, .location, state: .pending, expiresIn: 600)
        let error = #expect(throws: (any Error).self) { try fixture.store.write { try $0.save(duplicate) } }
        #expect(StoreUnderTest.isUniqueViolation(error), "\(String(describing: error))")
        var answered = p2
        answered.state = .answered
        answered.choice = .allowOnce
        answered.endedAt = epoch.addingTimeInterval(5)
        let update = answered
        try fixture.store.write { try $0.save(update) }
        #expect(try fixture.store.read { try $0.pendingPrompt(user: u1, app: maps, service: .location) } == nil)
        #expect(try fixture.store.read { try $0.prompt(id: p2.id) } == answered)
    }
}
