import Foundation
import PermissionDomain
import TestSupport
import Testing

/// An app's own feed (SPEC §5, §6: an app key reads "its own events"; ``AuditQuery/affecting``)
/// on both stores: the entries naming the app, and the entries naming no app that change what
/// it reads (policies and service definitions for every app, the Location Services switch and
/// the erasure of a user related to the app), never anything about a user the app has no
/// authorization or pending prompt with.
@Suite struct AppFeedTests {
    let admin = Actor(keyId: "k-admin", role: "admin")
    /// Has an authorization record with the app.
    let granted = Fixtures.user
    /// Has a pending prompt of the app only.
    let asked = Fixtures.otherUser
    /// Has a record with another app only.
    let stranger = try! UserID("u-stranger")
    /// Has nothing at all.
    let nobody = try! UserID("u-nobody")

    /// The feed's story: each step's entries, and whether the app's feed holds them.
    struct Story {
        var entries: [(seq: Int64, inFeed: Bool, what: String)] = []
        var expected: [Int64] { entries.filter(\.inFeed).map(\.seq) }
    }

    /// Runs `change` and records the entries it appended.
    private func step(
        _ h: Harness, _ story: inout Story, _ what: String, inFeed: [Bool], _ change: () throws -> Void
    ) throws {
        let before = try h.service.lastAuditSeq()
        try change()
        let after = try h.service.lastAuditSeq()
        #expect(after - before == Int64(inFeed.count), "\(what): \(after - before) entries")
        for (offset, flag) in inFeed.enumerated() {
            story.entries.append((before + 1 + Int64(offset), flag, what))
        }
    }

    private func policy(
        _ h: Harness, _ id: String, _ service: ServiceID, app: AppID?, user: UserID?, effect: PolicyEffect = .restrict,
        level: Level? = nil
    ) throws {
        _ = try h.service.putPolicy(
            id: try PolicyID(id), service: service, app: app, user: user, effect: effect, level: level, actor: admin,
            requestId: nil)
    }

    private func switchOff(_ h: Harness, _ user: UserID) throws {
        _ = try h.service.setLocationServices(user: user, enabled: false, actor: h.consent, requestId: nil)
    }

    /// Every kind of entry, each in the app's feed or not, as the rule says.
    private func tell(_ h: Harness) throws -> Story {
        var story = Story()
        let other = Fixtures.otherApp
        try step(h, &story, "the app's registration", inFeed: [true]) {
            let app = Fixtures.registeredApp()
            _ = try h.service.putApp(id: app.id, name: app.name, purposeStrings: app.purposeStrings, actor: admin, requestId: nil)
        }
        try step(h, &story, "the app's own record", inFeed: [true]) {
            _ = try h.service.setAuthorization(
                user: granted, app: h.app, service: .camera, status: .denied, level: nil, actor: h.consent, requestId: nil)
        }
        try step(h, &story, "the app's own prompt", inFeed: [true]) { _ = try h.prompt(.location, .whenInUse, user: asked) }
        try step(h, &story, "another app's record", inFeed: [false]) {
            _ = try h.service.setAuthorization(
                user: stranger, app: other, service: .camera, status: .denied, level: nil, actor: h.consent,
                requestId: nil)
        }
        try step(h, &story, "a policy for every app and user", inFeed: [true]) {
            try policy(h, "all-camera", .camera, app: nil, user: nil)
        }
        try step(h, &story, "that policy changed", inFeed: [true]) {
            try policy(h, "all-camera", .camera, app: nil, user: nil, effect: .allow, level: .full)
        }
        try step(h, &story, "another app's policy", inFeed: [false]) {
            try policy(h, "other-camera", .camera, app: other, user: nil)
        }
        try step(h, &story, "a policy for every app, for a related user", inFeed: [true]) {
            try policy(h, "granted-photos", .photos, app: nil, user: granted)
        }
        try step(h, &story, "a policy for every app, for a stranger", inFeed: [false]) {
            try policy(h, "stranger-photos", .photos, app: nil, user: stranger)
        }
        try step(h, &story, "the switch of a user with a record", inFeed: [true]) { try switchOff(h, granted) }
        // The switch cancels the user's pending location prompt; the cancelled prompt keeps them
        // related, so the switch is in the feed, as it will be when it is turned on again.
        try step(h, &story, "the switch of a user with a pending prompt, which it cancels", inFeed: [true, true]) {
            try switchOff(h, asked)
        }
        try step(h, &story, "the switch of a stranger", inFeed: [false]) { try switchOff(h, stranger) }
        try step(h, &story, "the switch of a user never seen", inFeed: [false]) { try switchOff(h, nobody) }
        try step(h, &story, "a custom service's definition", inFeed: [true]) {
            _ = try h.service.putService(
                id: try ServiceID("fitness"), levels: [try Level("steps")],
                purposeKeys: [["NSFitnessUsageDescription"]], actor: admin, requestId: nil)
        }
        try step(h, &story, "the app's policy", inFeed: [true]) { try policy(h, "maps-camera", .camera, app: h.app, user: nil) }
        try step(h, &story, "the app's policy moved to another app: deleted here, put there", inFeed: [true, false]) {
            try policy(h, "maps-camera", .camera, app: other, user: nil)
        }
        try step(h, &story, "the policy for every app deleted", inFeed: [true]) {
            try h.service.deletePolicy(id: try PolicyID("all-camera"), actor: admin, requestId: nil)
        }
        return story
    }

    private func feed(_ h: Harness, _ query: AuditQuery) throws -> [Int64] {
        try h.service.audit(query: query).map(\.seq)
    }

    @Test(arguments: StoreKind.allCases) func theFeedHoldsWhatChangesTheAppsReads(_ kind: StoreKind) throws {
        let h = try Harness(kind, registered: nil)
        let story = try tell(h)
        let log = try h.auditLog()
        let got = try feed(h, AuditQuery(limit: 1_000, affecting: h.app))
        for entry in story.entries {
            #expect(got.contains(entry.seq) == entry.inFeed, "\(entry.what) (seq \(entry.seq))")
        }
        #expect(got == story.expected)
        // The moved policy's deletion names the app it left.
        let moved = try #require(log.first { $0.seq == story.entries[story.entries.count - 3].seq })
        #expect(moved.action == .policyDeleted && moved.app == h.app)

        // Paged with any page size, the same sequence: the entries naming no app are merged in
        // seq order with those naming it.
        for size in [1, 2, 3, 5] {
            var paged: [Int64] = []
            var after: Int64 = 0
            while true {
                let page = try feed(h, AuditQuery(after: after, limit: size, affecting: h.app))
                paged += page
                guard page.count == size, let last = page.last else { break }
                after = last
            }
            #expect(paged == story.expected, "page size \(size)")
        }
        #expect(
            try feed(h, AuditQuery(newestFirst: true, limit: 3, affecting: h.app))
                == Array(story.expected.suffix(3).reversed()))

        // An admin's `app` filter is unchanged: the entries naming the app.
        #expect(try feed(h, AuditQuery(app: h.app, limit: 1_000)) == log.filter { $0.app == h.app }.map(\.seq))
    }

    /// `user` and `service` narrow the feed to what changes the app's reads for them.
    @Test(arguments: StoreKind.allCases) func filtersNarrowToWhatChangesTheirReads(_ kind: StoreKind) throws {
        let h = try Harness(kind, registered: nil)
        _ = try tell(h)
        func actions(_ query: AuditQuery) throws -> [String] {
            var query = query
            query.limit = 1_000
            query.affecting = h.app
            return try h.service.audit(query: query).map { entry in
                [entry.action.rawValue, entry.user?.rawValue ?? "-", entry.app?.rawValue ?? "-", entry.service?.rawValue ?? "-"]
                    .joined(separator: " ")
            }
        }
        let maps = h.app.rawValue
        let registration = "app.put - \(maps) -"
        #expect(
            try actions(AuditQuery(user: granted)) == [
                registration, "authorization.set u42 \(maps) camera", "policy.put - - camera", "policy.put - - camera",
                "policy.put u42 - photos", "settings.changed u42 - -", "service.put - - fitness",
                "policy.put - \(maps) camera", "policy.deleted - \(maps) camera", "policy.deleted - - camera",
            ])
        #expect(try actions(AuditQuery(user: stranger)).allSatisfy { !$0.contains("u-stranger") })
        #expect(try actions(AuditQuery(user: try UserID("u-never"))).count == 7, "the entries for every user only")
        #expect(
            try actions(AuditQuery(service: .location)) == [
                registration, "prompt.created u43 \(maps) location", "settings.changed u42 - -", "settings.changed u43 - -",
                "prompt.cancelled u43 \(maps) location",
            ])
        #expect(
            try actions(AuditQuery(service: .photos)) == [registration, "policy.put u42 - photos"],
            "the switch changes location only")
        #expect(try actions(AuditQuery(action: .settingsChanged)) == ["settings.changed u42 - -", "settings.changed u43 - -"])
        #expect(try actions(AuditQuery(action: .appPut)) == [registration])
    }

    /// A user whose only tie to the app was a pending location prompt, which switching Location
    /// Services off cancels: both switches, off and on again, are in the app's feed, as the app's
    /// reads of the user follow them (`denied` while off, `notDetermined` after).
    @Test(arguments: StoreKind.allCases) func theSwitchThatCancelsTheOnlyPromptStillReachesTheApp(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let asked = try UserID("u-asked")
        _ = try h.prompt(.location, .whenInUse, user: asked)
        let before = try h.service.lastAuditSeq()
        _ = try h.service.setLocationServices(user: asked, enabled: false, actor: h.consent, requestId: nil)
        _ = try h.service.setLocationServices(user: asked, enabled: true, actor: h.consent, requestId: nil)
        let entries = try h.service.audit(query: AuditQuery(after: before, limit: 10))
        #expect(entries.map(\.action) == [.settingsChanged, .promptCancelled, .settingsChanged])
        #expect(try feed(h, AuditQuery(after: before, limit: 100, affecting: h.app)) == entries.map(\.seq))
        #expect(try feed(h, AuditQuery(after: before, limit: 100, affecting: Fixtures.otherApp)).isEmpty)
    }

    /// A user's erasure names only their pseudonym: it is in the feed of the apps whose own
    /// entries are about the user (they carry that pseudonym), and no other.
    @Test(arguments: StoreKind.allCases) func anErasureReachesTheAppsThatKnewTheUser(_ kind: StoreKind) throws {
        let h = try Harness(kind, registered: nil)
        _ = try tell(h)
        let before = try h.service.lastAuditSeq()
        let strangerErased = try h.service.eraseUser(stranger, actor: admin, requestId: nil).seq
        let grantedErased = try h.service.eraseUser(granted, actor: admin, requestId: nil).seq
        let pseudonym = try h.service.audit(query: AuditQuery(after: grantedErased - 1, limit: 1)).first?.detail["pseudonym"]
        #expect(pseudonym != nil)
        #expect(try feed(h, AuditQuery(after: before, limit: 100, affecting: h.app)) == [grantedErased])
        #expect(
            try feed(h, AuditQuery(after: before, limit: 100, affecting: Fixtures.otherApp)) == [strangerErased],
            "the other app knew only the stranger")
        #expect(try feed(h, AuditQuery(service: .camera, after: before, limit: 100, affecting: h.app)) == [grantedErased])
        #expect(try feed(h, AuditQuery(user: granted, after: before, limit: 100, affecting: h.app)).isEmpty)
    }

    /// The app registered and the app's registration changed: in its feed with any filter, as
    /// its purpose strings decide `purposeChanged` for every user and service of it.
    @Test(arguments: StoreKind.allCases) func theAppsRegistrationPassesUserAndServiceFilters(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try h.grant(.camera, .full, .allow)
        let registered = try #require(try h.auditLog().first { $0.action == .appPut }).seq
        let user = try feed(h, AuditQuery(user: h.user, limit: 100, affecting: h.app))
        let service = try feed(h, AuditQuery(service: .location, limit: 100, affecting: h.app))
        #expect(user.first == registered && service == [registered])
        #expect(try feed(h, AuditQuery(user: h.user, limit: 100)).first != registered, "an admin's filter names the user")
    }
}
