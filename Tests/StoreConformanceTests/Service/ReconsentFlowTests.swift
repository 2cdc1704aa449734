import Foundation
import PermissionDomain
import TestSupport
import Testing

/// Re-consent when the purpose changes (SPEC §11) on both stores: a grant shows
/// `purposeChanged` as soon as the app's text for it changes (the app the status read keeps in
/// memory is replaced by the write, and by another process's or replica's write), the reverse
/// query lists exactly those grants, and re-consent returns them to `notDetermined`
/// (`purposeChanged`) with one audited entry each, in bounded batches, leaving denials alone.
@Suite struct ReconsentFlowTests {
    typealias F = Fixtures
    static let camera = "NSCameraUsageDescription"
    static let newText = "Scans tickets and receipts."

    /// Registers Maps again with the camera's text replaced (and German for the camera).
    static func changeCamera(_ service: PermissionService, to text: String = newText, german: String? = nil) throws {
        var strings = F.allPurposeStrings
        strings[camera] = try PurposeString(text)
        var localized: [LanguageTag: [String: PurposeString]] = [:]
        if let german { localized[try LanguageTag("de")] = [camera: try PurposeString(german)] }
        _ = try service.putApp(
            id: F.app, name: "Maps", purposeStrings: strings, localizedPurposeStrings: localized,
            actor: Actor(keyId: "k-admin", role: "admin"), requestId: "put")
    }

    @Test(arguments: StoreKind.allCases) func aChangedTextFlagsGrantsOnlyAndReconsentAsksAgain(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let denier = try UserID("u-denied")
        let granted = try h.grant(.camera, .full, .allow)
        try h.grant(.camera, .full, .deny, user: denier)
        let microphone = try h.grant(.microphone, .full, .allow)
        #expect(!granted.purposeChanged)
        #expect(try h.current(.camera) == granted, "read (and kept in memory) before the change")
        #expect(try h.service.purposeChangedGrants(app: h.app, after: nil, limit: 10).items.isEmpty)

        try Self.changeCamera(h.service)
        let flagged = try h.current(.camera)
        #expect(flagged.purposeChanged && flagged.status == .authorized && flagged.version == granted.version)
        #expect(flagged.etag != granted.etag, "a conditional read sees the new representation")
        #expect(try !h.current(.camera, user: denier).purposeChanged, "a denial is not a grant")
        #expect(try h.current(.microphone) == microphone, "another key's grant is unchanged")
        let listed = try h.service.authorizations(matching: AuthorizationFilter(user: h.user), after: nil, limit: 10)
        #expect(listed.items.map(\.purposeChanged) == [true, false], "camera, microphone")
        let page = try h.service.purposeChangedGrants(app: h.app, after: nil, limit: 10)
        #expect(page.items == [flagged] && page.nextAfter == nil)

        let before = try h.auditLog().count
        let admin = Actor(keyId: "k-admin", role: "admin")
        #expect(try h.service.reconsent(app: h.app, actor: admin, requestId: "rc") == 1)
        let asked = try h.current(.camera)
        #expect(asked.status == .notDetermined && asked.reason == .purposeChanged && asked.version == granted.version + 1)
        #expect(!asked.purposeChanged && asked.purpose == nil)
        #expect(try h.current(.camera, user: denier).status == .denied, "denials stay")
        #expect(try h.current(.microphone) == microphone)
        let log = try h.auditLog()
        #expect(log.count == before + 1)
        let entry = try #require(log.last)
        #expect(entry.action == .authorizationReconsent && entry.actor == admin && entry.requestId == "rc")
        #expect(entry.user == h.user && entry.service == .camera && entry.reason == .purposeChanged)
        #expect(entry.from == AuthorizationSnapshot(status: .authorized, level: .full))
        #expect(entry.to == AuthorizationSnapshot(status: .notDetermined))
        #expect(try h.service.reconsent(app: h.app, actor: admin, requestId: "again") == 0, "nothing left")
        #expect(try h.service.purposeChangedGrants(app: h.app, after: nil, limit: 10).items.isEmpty)

        // The next request prompts with the new text; granting it is current again.
        let prompt = try h.prompt(.camera, .full)
        #expect(prompt.purpose.rawValue == Self.newText)
        _ = try h.service.decide(promptID: prompt.id, choice: "allow", actor: h.consent, requestId: "d2")
        #expect(try !h.current(.camera).purposeChanged)
        #expect(try h.fixture.store.verifyAuditChain(batchSize: 100, progress: nil).isIntact)
    }

    /// The grant keeps the key its text was shown under: a text that moves to another key of
    /// the same service, while the key gets a new one, is a change (SPEC §11).
    @Test(arguments: StoreKind.allCases) func aTextMovedToAnotherKeyOfTheServiceIsAChange(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let prompt = try h.prompt(.photos, .full)
        #expect(prompt.purposeKey == "NSPhotoLibraryUsageDescription")
        let granted = try h.service.decide(promptID: prompt.id, choice: "allowFull", actor: h.consent, requestId: "d")
        #expect(!granted.authorization.purposeChanged)
        var strings = F.allPurposeStrings
        strings["NSPhotoLibraryAddUsageDescription"] = strings["NSPhotoLibraryUsageDescription"]
        strings["NSPhotoLibraryUsageDescription"] = try PurposeString("Sells your photos.")
        _ = try h.service.putApp(
            id: F.app, name: "Maps", purposeStrings: strings, actor: Actor(keyId: "k-admin", role: "admin"),
            requestId: "put")
        #expect(try h.current(.photos).purposeChanged, "the text shown is now another key's")
        let page = try h.service.purposeChangedGrants(app: h.app, after: nil, limit: 10)
        #expect(page.items.map(\.service) == [.photos])
        // Another process (SQLite) or replica (PostgreSQL) reads the key from the store too.
        let again = PermissionService(store: try h.fixture.openAgain(), clock: h.clock)
        #expect(try again.authorization(user: h.user, app: h.app, service: .photos).purposeChanged)
    }

    @Test(arguments: StoreKind.allCases) func aGermanGrantFollowsItsTranslation(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try Self.changeCamera(h.service, to: "Purpose of \(Self.camera).", german: "Die Kamera scannt Fahrkarten.")
        _ = try h.service.putSettings(
            user: h.user, locationServicesEnabled: true, locale: try LanguageTag("de"), actor: h.consent, requestId: "s")
        let granted = try h.grant(.camera, .full, .allow)
        #expect(granted.purposeLanguage?.rawValue == "de" && !granted.purposeChanged)
        try Self.changeCamera(h.service, to: Self.newText, german: "Die Kamera scannt Fahrkarten.")
        #expect(try !h.current(.camera).purposeChanged, "only the base string changed")
        try Self.changeCamera(h.service, to: Self.newText, german: "Die Kamera scannt Fahrkarten und Belege.")
        #expect(try h.current(.camera).purposeChanged, "the German text changed")
    }

    @Test(arguments: StoreKind.allCases) func thousandsOfGrantsAreAskedAgainInBatchesWithOneEntryEach(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let count = PermissionService.reconsentBatchSize + 44  // more than one batch
        let users = try (0..<count).map { try UserID(String(format: "u%04d", $0)) }
        for user in users { try h.grant(.camera, .full, .allow, user: user) }
        try Self.changeCamera(h.service)
        var listed: [Authorization] = []
        var after: AuthorizationKey?
        repeat {
            let page = try h.service.purposeChangedGrants(app: h.app, after: after, limit: 100)
            listed += page.items
            after = page.nextAfter
        } while after != nil
        #expect(listed.map(\.user) == users && listed.allSatisfy(\.purposeChanged))
        let before = try h.auditLog().count
        #expect(try h.service.reconsent(app: h.app, actor: .anonymous, requestId: "rc") == count)
        let entries = try h.auditLog().dropFirst(before)
        #expect(entries.count == count && entries.allSatisfy { $0.action == .authorizationReconsent })
        #expect(Set(entries.compactMap(\.user)) == Set(users), "one entry per record")
        #expect(try h.current(.camera, user: users[count - 1]).reason == .purposeChanged)
    }

    @Test(arguments: StoreKind.allCases) func anotherProcessOrReplicaSeesTheChangedText(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let granted = try h.grant(.camera, .full, .allow)
        let other = PermissionService(store: try h.fixture.openAgain(), clock: h.clock)
        let read = { try other.authorization(user: h.user, app: h.app, service: .camera) }
        #expect(try read() == granted, "the other store keeps the app in memory")
        try Self.changeCamera(h.service)
        // At once on PostgreSQL's follower within its poll, within about 100 ms on SQLite.
        let deadline = Date() + 10
        while try !read().purposeChanged, Date() < deadline { usleep(10_000) }
        #expect(try read().purposeChanged)
    }
}
