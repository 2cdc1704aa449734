import Foundation
import PermissionDomain
import TestSupport
import Testing

/// SPEC §11 through the service on both stores: a prompt shows the app's translation for the
/// user's `locale` (RFC 4647 lookup), else the base string; the prompt, the authorization and
/// the audit entries keep the text and the language shown; a consent page's languages win
/// over the locale, and its decision records what it showed. The audit chain stays intact.
@Suite struct LocalizedPromptFlowTests {
    typealias F = Fixtures
    static let cameraKey = "NSCameraUsageDescription"
    static let alwaysKey = "NSLocationAlwaysAndWhenInUseUsageDescription"
    static let whenInUseKey = "NSLocationWhenInUseUsageDescription"

    /// Maps with every base string, German for the camera and both location keys, French for
    /// the camera only.
    static func localize(_ h: Harness) throws {
        let de = try LanguageTag("de"), fr = try LanguageTag("fr")
        _ = try h.service.putApp(
            id: h.app, name: "Maps", purposeStrings: F.allPurposeStrings,
            localizedPurposeStrings: [
                de: [
                    cameraKey: try purpose("Die Kamera scannt Fahrkarten."),
                    whenInUseKey: try purpose("Zeigt Haltestellen in der Nähe."),
                    alwaysKey: try purpose("Meldet, wenn deine Haltestelle naht."),
                ],
                fr: [cameraKey: try purpose("L’appareil photo scanne les billets.")],
            ],
            actor: .anonymous, requestId: "setup")
    }

    func setLocale(_ h: Harness, _ tag: String?, user: UserID = F.user) throws {
        _ = try h.service.putSettings(
            user: user, locationServicesEnabled: true, locale: try tag.map { try LanguageTag($0) }, actor: h.consent,
            requestId: "s")
    }

    @Test(arguments: StoreKind.allCases) func aSwissGermanUserIsShownGermanAndTheDecisionKeepsIt(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try Self.localize(h)
        try setLocale(h, "de-CH")
        let prompt = try h.prompt(.camera, .full)
        #expect(prompt.purpose.rawValue == "Die Kamera scannt Fahrkarten.")
        #expect(prompt.purposeLanguage?.rawValue == "de", "de-CH falls back to de")
        #expect(try h.service.prompt(id: prompt.id).purposeLanguage?.rawValue == "de", "stored with the prompt")

        let decided = try h.service.decide(promptID: prompt.id, choice: "allow", actor: h.consent, requestId: "d")
        #expect(decided.authorization.purpose?.rawValue == "Die Kamera scannt Fahrkarten.")
        #expect(decided.authorization.purposeLanguage?.rawValue == "de")
        #expect(try h.current(.camera).purposeLanguage?.rawValue == "de", "read back from the store")
        #expect(decided.prompt.purposeLanguage?.rawValue == "de")

        let log = try h.auditLog()
        let created = try #require(log.first { $0.action == .promptCreated })
        #expect(created.purpose?.rawValue == "Die Kamera scannt Fahrkarten.")
        #expect(created.detail == ["kind": "request", "level": "full", "purposeLanguage": "de"])
        let answered = try #require(log.first { $0.action == .promptAnswered })
        #expect(answered.purpose?.rawValue == "Die Kamera scannt Fahrkarten.")
        #expect(answered.detail["purposeLanguage"] == "de" && answered.detail["choice"] == "allow")
        #expect(
            answered.purposeHash?.count == 64 && answered.purposeHash == created.purposeHash,
            "the hash of the German text shown, as on the prompt entry")
        let report = try h.fixture.store.verifyAuditChain(batchSize: 5, progress: nil)
        #expect(report.isIntact && report.totalEntries == Int64(log.count))
    }

    @Test(arguments: StoreKind.allCases) func withoutAMatchingTranslationTheBaseStringIsShown(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try Self.localize(h)
        // No locale at all.
        let plain = try h.prompt(.camera, .full)
        #expect(plain.purpose == F.allPurposeStrings[Self.cameraKey] && plain.purposeLanguage == nil)
        // A locale the app has no translation for.
        try setLocale(h, "ja", user: F.otherUser)
        let japanese = try h.prompt(.camera, .full, user: F.otherUser)
        #expect(japanese.purpose == F.allPurposeStrings[Self.cameraKey] && japanese.purposeLanguage == nil)
        // A language the app has, but not for this key (French has only the camera).
        let third = try user("u44")
        try setLocale(h, "fr-CA", user: third)
        #expect(try h.prompt(.camera, .full, user: third).purposeLanguage?.rawValue == "fr")
        let location = try h.prompt(.location, .whenInUse, user: third)
        #expect(location.purpose == F.allPurposeStrings[Self.whenInUseKey] && location.purposeLanguage == nil)

        let decided = try h.service.decide(promptID: japanese.id, choice: "deny", actor: h.consent, requestId: "d")
        #expect(decided.authorization.purpose == F.allPurposeStrings[Self.cameraKey])
        #expect(decided.authorization.purposeLanguage == nil)
        let entries = try h.auditLog().filter { $0.promptId == japanese.id }
        #expect(entries.count == 2 && entries.allSatisfy { $0.detail["purposeLanguage"] == nil })
    }

    @Test(arguments: StoreKind.allCases) func theSystemsUpgradePromptIsShownInTheUsersLanguage(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try Self.localize(h)
        try setLocale(h, "de")
        let request = try h.prompt(.location, .always)
        #expect(request.purpose.rawValue == "Zeigt Haltestellen in der Nähe." && request.purposeLanguage?.rawValue == "de")
        let provisional = try h.service.decide(promptID: request.id, choice: "allowWhileUsing", actor: h.consent, requestId: "d")
        #expect(provisional.authorization.provisional)
        let upgrade = try #require(
            try h.service.lifecycle(user: h.user, app: h.app, event: .backgroundLocationUsed, actor: .system, requestId: "l")
                .prompt)
        #expect(upgrade.kind == .upgrade)
        #expect(upgrade.purpose.rawValue == "Meldet, wenn deine Haltestelle naht." && upgrade.purposeLanguage?.rawValue == "de")
    }

    @Test(arguments: StoreKind.allCases) func aConsentPagesLanguagesWinAndItsDecisionRecordsWhatItShowed(_ kind: StoreKind) throws
    {
        let h = try Harness(kind)
        try Self.localize(h)
        try setLocale(h, "de")
        let prompt = try h.prompt(.camera, .full)
        // The page's Accept-Language prefers French; Japanese matches nothing.
        let french = try h.service.purposeText(for: prompt, languages: ["fr-CA", "de"])
        #expect(french.text.rawValue == "L’appareil photo scanne les billets." && french.language?.rawValue == "fr")
        let unmatched = try h.service.purposeText(for: prompt, languages: ["ja"])
        #expect(
            unmatched.text.rawValue == "Die Kamera scannt Fahrkarten." && unmatched.language?.rawValue == "de",
            "no match: the prompt's own text (the locale's match)")
        let own = try h.service.purposeText(for: prompt, languages: [])
        #expect(own.text == prompt.purpose && own.language == prompt.purposeLanguage)

        let decided = try h.service.decide(
            promptID: prompt.id, choice: "allow", languages: ["fr-CA", "de"], actor: h.consent, requestId: "d")
        #expect(decided.prompt.purpose.rawValue == "L’appareil photo scanne les billets.")
        #expect(decided.prompt.purposeLanguage?.rawValue == "fr")
        #expect(try h.service.prompt(id: prompt.id).purposeLanguage?.rawValue == "fr", "the answered prompt keeps what was shown")
        #expect(decided.authorization.purpose?.rawValue == "L’appareil photo scanne les billets.")
        #expect(decided.authorization.purposeLanguage?.rawValue == "fr")
        let answered = try #require(try h.auditLog().first { $0.action == .promptAnswered })
        #expect(
            answered.purpose?.rawValue == "L’appareil photo scanne les billets." && answered.detail["purposeLanguage"] == "fr")
    }

    @Test(arguments: StoreKind.allCases) func settingsAndRegistrationsAuditTheirLanguages(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try Self.localize(h)
        let put = try #require(try h.auditLog().last { $0.action == .appPut })
        #expect(put.detail["languages"] == "de,fr")

        try setLocale(h, "de-CH")
        #expect(try h.service.userSettings(h.user).locale?.rawValue == "de-CH")
        // The switch alone keeps the locale.
        let off = try h.service.setLocationServices(user: h.user, enabled: false, actor: h.consent, requestId: "s")
        #expect(off.locale?.rawValue == "de-CH" && !off.locationServicesEnabled)
        // The same settings again change nothing and write nothing.
        let before = try h.auditLog().count
        _ = try h.service.putSettings(
            user: h.user, locationServicesEnabled: false, locale: try LanguageTag("de-ch"), actor: h.consent, requestId: "s")
        #expect(try h.auditLog().count == before, "de-ch is de-CH")
        _ = try h.service.putSettings(user: h.user, locationServicesEnabled: false, locale: nil, actor: h.consent, requestId: "s")
        let changes = try h.auditLog().filter { $0.action == .settingsChanged }.map(\.detail)
        #expect(
            changes == [
                ["locationServicesEnabled": "true", "locale": "de-CH"],
                ["locationServicesEnabled": "false", "locale": "de-CH"],
                ["locationServicesEnabled": "false", "locale": ""],
            ])
        #expect(try h.service.userSettings(h.user).locale == nil)
    }
}
