import Foundation
import PermissionDomain
import PostgresStore
import TestSupport
import Testing

/// Every listing of `PermissionReader` on both stores: byte order of the ids (the PostgreSQL
/// database has an ICU default collation, which orders otherwise), keyset pages of every size
/// with boundaries inside equal prefixes, each filter, and the bounds of the due queries.
@Suite struct ListingTests {
    /// Ids whose byte order differs from a case-blind, punctuation-blind order.
    static let userIDs = ["U2", "a1", "a-b", "a.b", "a_b", "A1", "b", "a", "aa", "Z9", "0x", "a+b", "a@b", "a:b"]
    static let appIDs = ["com.B.x", "com.a.x", "Com.a.y", "com.a-b.x", "com.a.x2"]

    /// Reads every page of `page(after, limit)` and checks each is at most `limit` long.
    func all<Element, Cursor>(
        limit: Int, cursor: (Element) -> Cursor, _ page: (Cursor?, Int) throws -> [Element]
    ) throws
        -> [Element]
    {
        var collected: [Element] = []
        var after: Cursor?
        while true {
            let items = try page(after, limit)
            #expect(items.count <= limit)
            collected += items
            guard items.count == limit, let last = items.last else { return collected }
            after = cursor(last)
        }
    }

    @Test(arguments: StoreKind.allCases) func idsAreInByteOrderInEveryListing(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let users = try Self.userIDs.map(user)
        let apps = try Self.appIDs.map(app)
        let services = try ["zeta", "alpha", "alphaBeta", "alpha2", "aZ"].map(service)
        let policyIDs = try Self.userIDs.map { try PolicyID("p" + $0) }
        let promptIDs = try ["B1", "a1", "_x", "-y", "0z", "a-1", "a_1", "A_1"].map { try PromptID($0) }
        try fixture.store.write { writer in
            for u in users {
                for a in apps.prefix(2) {
                    try writer.save(
                        StoredAuthorization(user: u, app: a, service: .camera, status: .denied, reason: .userSet, version: 1))
                }
            }
            for a in apps { try writer.save(App(trusted: a, name: "App", purposeStrings: [:], updatedAt: epoch)) }
            for s in services { try writer.save(try ServiceDefinition(id: s, levels: [.full], purposeKeys: [["K"]])) }
            for (id, u) in zip(policyIDs, users) {
                try writer.save(
                    try Policy(id: id, service: .camera, app: nil, user: u, effect: .restrict, level: nil, updatedAt: epoch))
            }
            for (index, id) in promptIDs.enumerated() {
                try writer.save(
                    Prompt(
                        id: id, user: users[index], app: apps[0], service: .camera, kind: .request, requestedLevel: .full,
                        options: [.allow, .deny], purpose: try purpose("Scan."), purposeKey: "NSCameraUsageDescription",
                        state: .pending, createdAt: epoch, expiresAt: epoch + 600))
            }
        }
        let store = fixture.store
        for limit in [1, 2, 3, 1000] {
            let records = try all(limit: limit, cursor: \StoredAuthorization.key) { after, limit in
                try store.read { try $0.authorizations(matching: AuthorizationFilter(), after: after, limit: limit) }
            }
            #expect(records.map(\.key) == records.map(\.key).sorted(), "limit \(limit)")
            #expect(records.count == users.count * 2)
            let appList = try all(limit: limit, cursor: \App.id) { after, limit in
                try store.read { try $0.apps(after: after, limit: limit) }
            }
            #expect(appList.map(\.id.rawValue) == Self.appIDs.sorted(), "limit \(limit)")
            let policyList = try all(limit: limit, cursor: \Policy.id) { after, limit in
                try store.read { try $0.policies(after: after, limit: limit) }
            }
            #expect(policyList.map(\.id.rawValue) == policyIDs.map(\.rawValue).sorted(), "limit \(limit)")
            let promptList = try all(limit: limit, cursor: \Prompt.id) { after, limit in
                try store.read { try $0.prompts(matching: PromptFilter(), after: after, limit: limit) }
            }
            #expect(promptList.map(\.id.rawValue) == promptIDs.map(\.rawValue).sorted(), "limit \(limit)")
        }
        #expect(try store.read { try $0.services() }.map(\.id.rawValue) == ["aZ", "alpha", "alpha2", "alphaBeta", "zeta"])
        // Byte order, as Swift compares ASCII strings: "A1" < "U2" < "Z9" < "a" < "a+b" < ...
        #expect(Self.userIDs.sorted().prefix(4) == ["0x", "A1", "U2", "Z9"])
    }

    /// The fixture's premise: text in the PostgreSQL database does not compare by bytes unless
    /// the store says so, so the test above would catch a column without `COLLATE "C"`.
    @Test func thePostgresDatabaseDoesNotCompareTextByBytes() throws {
        let fixture = try StoreKind.postgres.open()
        let connection = try PostgresConnection(try #require(fixture.postgresConnectionString))
        let rows = try connection.query(PreparedStatement("SELECT CASE WHEN 'B' < 'a' THEN 'bytes' ELSE 'locale' END"))
        #expect(try rows[0].string(at: 0) == "locale")
    }

    @Test(arguments: StoreKind.allCases) func authorizationFiltersAndPagesAgreeWithTheFilterRule(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let users = try ["u1", "u10", "u2"].map(user)
        let apps = try ["com.a.one", "com.a.onex", "com.b.one"].map(app)
        let services: [ServiceID] = [.camera, .contacts, .location]
        let statuses: [AuthorizationStatus] = [.notDetermined, .denied, .authorized]
        var records: [StoredAuthorization] = []
        for (i, u) in users.enumerated() {
            for (j, a) in apps.enumerated() {
                for (k, s) in services.enumerated() {
                    let status = statuses[(i + j + k) % 3]
                    records.append(
                        StoredAuthorization(
                            user: u, app: a, service: s, status: status, level: status == .authorized ? .full : nil,
                            reason: .userSet, updatedAt: epoch, version: 1))
                }
            }
        }
        let saved = records
        try fixture.store.write { writer in for record in saved { try writer.save(record) } }
        var filters: [AuthorizationFilter] = []
        let userChoices: [UserID?] = [nil, users[0], users[1]]
        let appChoices: [AppID?] = [nil, apps[0], apps[1]]
        let statusChoices: [AuthorizationStatus?] = [nil] + statuses
        for u in userChoices {
            for a in appChoices {
                for s in [nil, ServiceID.camera] {
                    for status in statusChoices {
                        filters.append(AuthorizationFilter(user: u, app: a, service: s, status: status))
                    }
                }
            }
        }
        for filter in filters {
            let expected = records.filter(filter.matches).sorted { $0.key < $1.key }
            for limit in [1, 2, 5] {
                let pages = try all(limit: limit, cursor: \StoredAuthorization.key) { after, limit in
                    try fixture.store.read { try $0.authorizations(matching: filter, after: after, limit: limit) }
                }
                #expect(pages == expected, "\(filter) limit \(limit)")
            }
        }
    }

    func prompt(_ id: String, _ u: UserID, _ a: AppID, _ s: ServiceID, _ state: PromptState, expires: Double) throws -> Prompt {
        Prompt(
            id: try PromptID(id), user: u, app: a, service: s, kind: .request, requestedLevel: .full, options: [.allow, .deny],
            purpose: try purpose("Why."), purposeKey: "K", state: state, createdAt: epoch, expiresAt: epoch + expires,
            endedAt: state == .pending ? nil : epoch + 1, choice: state == .answered ? .allow : nil)
    }

    @Test(arguments: StoreKind.allCases) func promptFiltersPagesAndTheDueAndPendingQueries(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let users = try ["u1", "u2"].map(user)
        let apps = try ["com.a.one", "com.b.one"].map(app)
        let services: [ServiceID] = [.camera, .contacts]
        let states: [PromptState] = [.pending, .answered, .expired, .cancelled]
        var prompts: [Prompt] = []
        var index = 0
        for u in users {
            for a in apps {
                for s in services {
                    // One stored-pending prompt per authorization at most; the others ended.
                    for state in states {
                        index += 1
                        let expires = Double([30, 10, 30, 20][index % 4])  // equal deadlines: ordered by id
                        prompts.append(try prompt(String(format: "p%03d", index), u, a, s, state, expires: expires))
                    }
                }
            }
        }
        let saved = prompts
        try fixture.store.write { writer in for p in saved { try writer.save(p) } }
        let store = fixture.store
        let userChoices: [UserID?] = [nil] + users
        let stateChoices: [PromptState?] = [nil] + states
        for u in userChoices {
            for a in [nil, apps[1]] {
                for s in [nil, ServiceID.contacts] {
                    for state in stateChoices {
                        let filter = PromptFilter(user: u, app: a, service: s, state: state)
                        let expected = prompts.filter(filter.matches)
                        let pages = try all(limit: 3, cursor: \Prompt.id) { after, limit in
                            try store.read { try $0.prompts(matching: filter, after: after, limit: limit) }
                        }
                        #expect(pages == expected, "\(filter)")
                    }
                }
            }
        }
        let pending = prompts.filter { $0.state == .pending }
        try store.read { (reader: any PermissionReader) throws in
            for p in pending {
                #expect(try reader.pendingPrompt(user: p.user, app: p.app, service: p.service) == p)
            }
            #expect(try reader.pendingPrompt(user: users[0], app: apps[0], service: .location) == nil)
            // Due: stored-pending with expiresAt <= the date (inclusive), by (expiresAt, id).
            let order = pending.sorted { ($0.expiresAt, $0.id.rawValue) < ($1.expiresAt, $1.id.rawValue) }
            for seconds in [9.999, 10, 20, 29.999, 30, 3600] {
                let expected = order.filter { $0.expiresAt <= epoch + seconds }
                #expect(try reader.duePrompts(before: epoch + seconds, limit: 100) == expected, "\(seconds)")
                #expect(try reader.duePrompts(before: epoch + seconds, limit: 2) == Array(expected.prefix(2)), "\(seconds)")
            }
            #expect(try reader.prompt(id: try PromptID("nope")) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func dueGrantsAreBoundedInclusiveAndTieBrokenByKey(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let keys = try [("u2", "com.a.b"), ("u1", "com.b.a"), ("u1", "com.a.b"), ("U1", "com.a.b")].map {
            (try user($0.0), try app($0.1))
        }
        var records: [StoredAuthorization] = []
        for (index, (u, a)) in keys.enumerated() {
            for (offset, s) in [ServiceID.location, .camera].enumerated() {
                // location: Allow Once; camera: an expiring grant (SPEC §11); both have an end.
                records.append(
                    StoredAuthorization(
                        user: u, app: a, service: s, status: .authorized, level: s == .location ? .whenInUse : .full,
                        once: s == .location, expiresAt: epoch + Double(index < 2 ? 60 : 120 + offset), reason: .userConsent,
                        updatedAt: epoch, version: 1))
            }
            records.append(
                StoredAuthorization(
                    user: u, app: a, service: .microphone, status: .authorized, level: .full, reason: .userConsent,
                    updatedAt: epoch, version: 1))
        }
        let saved = records
        try fixture.store.write { writer in for record in saved { try writer.save(record) } }
        let ending = records.filter { $0.expiresAt != nil }.sorted {
            ($0.expiresAt!, $0.key) < ($1.expiresAt!, $1.key)
        }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.dueGrants(before: epoch + 59.999, limit: 10) == [])
            #expect(try reader.dueGrants(before: epoch + 60, limit: 10) == Array(ending.prefix(4)))
            #expect(try reader.dueGrants(before: epoch + 60, limit: 1) == Array(ending.prefix(1)))
            #expect(try reader.dueGrants(before: epoch + 120, limit: 10) == Array(ending.prefix(6)))
            #expect(try reader.dueGrants(before: epoch + 1000, limit: 20) == ending, "a grant without an end is never due")
            #expect(
                try reader.dueGrants(before: epoch + 1000, limit: 20).map { "\($0.user.rawValue)/\($0.service.rawValue)" }
                    == [
                        "u1/camera", "u1/location", "u2/camera", "u2/location", "U1/location", "u1/location", "U1/camera",
                        "u1/camera",
                    ])
        }
    }

    @Test(arguments: StoreKind.allCases) func policiesApplyWhenServiceMatchesAndAppAndUserAreNullOrEqual(_ kind: StoreKind) throws
    {
        let fixture = try kind.open()
        let maps = try app("com.example.maps"), other = try app("com.example.other")
        let u1 = try user("u1"), u2 = try user("u2")
        var policies: [Policy] = []
        for (i, a) in [nil, maps, other].enumerated() {
            for (j, u) in [nil, u1, u2].enumerated() {
                for s in [ServiceID.camera, .contacts] {
                    let effect: PolicyEffect = (i + j).isMultiple(of: 2) ? .restrict : .allow
                    policies.append(
                        try Policy(
                            id: PolicyID("\(s.rawValue)-\(i)\(j)"), service: s, app: a, user: u, effect: effect,
                            level: effect == .allow ? .full : nil, updatedAt: epoch + Double(i * 3 + j)))
                }
            }
        }
        let saved = policies
        try fixture.store.write { writer in for policy in saved { try writer.save(policy) } }
        try fixture.store.read { (reader: any PermissionReader) throws in
            for (a, u) in [(maps, u1), (other, u2), (try app("com.unknown.app"), try user("u9"))] {
                let expected = policies.filter {
                    $0.service == .camera && ($0.app == nil || $0.app == a) && ($0.user == nil || $0.user == u)
                }
                #expect(Set(try reader.policies(service: .camera, app: a, user: u)) == Set(expected), "\(a) \(u)")
            }
            #expect(try reader.policies(service: .microphone, app: maps, user: u1) == [])
            for policy in policies { #expect(try reader.policy(id: policy.id) == policy) }
        }
    }
}
