import Foundation
import PermissionDomain
import TestSupport
import Testing

/// SPEC §11 rules on values: what an app may translate, which translation a person sees, and
/// that a decision keeps the language it was made in while any other change forgets it.
@Suite struct LocalizedPurposeRuleTests {
    typealias F = Fixtures
    static let camera = "NSCameraUsageDescription"

    static func app(_ localized: [LanguageTag: [String: PurposeString]]) throws -> App {
        try App(id: F.app, name: "Maps", purposeStrings: F.allPurposeStrings, localizedPurposeStrings: localized, updatedAt: F.t0)
    }

    @Test func aTranslationOfAKeyWithoutABaseStringIsAnInvalidCombinationNamingTheMember() throws {
        let de = try LanguageTag("de")
        let strings = [Self.camera: try PurposeString("Kamera.")]
        #expect(
            throws: PermissionError.invalidCombination(
                field: "localizedPurposeStrings/de/NSCameraUsageDescription",
                why: "NSCameraUsageDescription is not one of the app's purposeStrings"
            )
        ) {
            try App(id: F.app, name: "Maps", purposeStrings: [:], localizedPurposeStrings: [de: strings], updatedAt: F.t0)
        }
    }

    @Test func aLanguageWithoutStringsAndMoreThan32LanguagesAreRefused() throws {
        #expect(
            throws: PermissionError.invalidArgument(
                field: "localizedPurposeStrings/fr", why: "must have at least one purpose string"
            )
        ) { try Self.app([try LanguageTag("fr"): [:]]) }
        let text = try PurposeString("Text.")
        var many: [LanguageTag: [String: PurposeString]] = [:]
        for first in ["a", "b", "c", "d", "e", "f"] {
            for second in ["a", "b", "c", "d", "e", "f"] { many[try LanguageTag("\(first)\(second)")] = [Self.camera: text] }
        }
        let thirtyTwo = Dictionary(uniqueKeysWithValues: many.sorted { $0.key < $1.key }.prefix(32).map { ($0.key, $0.value) })
        #expect(try Self.app(thirtyTwo).localizedPurposeStrings.count == 32)
        #expect(throws: PermissionError.invalidArgument(field: "localizedPurposeStrings", why: "at most 32 languages")) {
            try Self.app(many)
        }
    }

    @Test func theTranslationShownIsTheBestMatchForTheKey() throws {
        let app = try Self.app([
            try LanguageTag("de"): [Self.camera: try PurposeString("Kamera.")],
            try LanguageTag("de-CH"): [Self.camera: try PurposeString("Kamera (CH).")],
            try LanguageTag("fr"): ["NSMicrophoneUsageDescription": try PurposeString("Micro.")],
        ])
        #expect(app.localizedPurpose(key: Self.camera, languages: ["de-CH"])?.text.rawValue == "Kamera (CH).")
        #expect(app.localizedPurpose(key: Self.camera, languages: ["de-AT"])?.language.rawValue == "de")
        #expect(
            app.localizedPurpose(key: Self.camera, languages: ["fr", "de"])?.language.rawValue == "de",
            "French has no camera string: the next language")
        #expect(app.localizedPurpose(key: Self.camera, languages: ["fr"]) == nil)
        #expect(app.localizedPurpose(key: Self.camera, languages: []) == nil)
    }

    @Test func aDecisionKeepsThePromptsLanguageAndSettingsForgetIt() throws {
        var prompt = F.prompt(.camera, .full)
        prompt.purpose = try PurposeString("Die Kamera scannt.")
        prompt.purposeLanguage = try LanguageTag("de")
        let service = F.service(.camera)
        let granted = try Rules.decide(
            prompt: prompt, choice: .allow, stored: F.stored(.camera), service: service, now: F.t0, onceTTL: 60)
        #expect(granted.purpose?.rawValue == "Die Kamera scannt." && granted.purposeLanguage?.rawValue == "de")
        let denied = try Rules.decide(
            prompt: prompt, choice: .deny, stored: F.stored(.camera), service: service, now: F.t0, onceTTL: 60)
        #expect(denied.purposeLanguage?.rawValue == "de")
        let set = try Rules.settings(
            stored: granted, effective: F.plain(granted), service: service, app: F.registeredApp(), status: .denied, level: nil,
            now: F.t0)
        #expect(set.purpose == nil && set.purposeLanguage == nil)
        #expect(Rules.reset(stored: granted, reason: .reset)?.purposeLanguage == nil)
    }

    @Test func theLanguageCountsInTheEntityTag() throws {
        var stored = F.stored(.camera, .authorized, .full, reason: .userConsent, version: 3)
        stored.purpose = try PurposeString("Scan.")
        let base = F.plain(stored)
        var german = stored
        german.purposeLanguage = try LanguageTag("de")
        #expect(F.plain(german).etag != base.etag)
        #expect(F.plain(german).purposeLanguage?.rawValue == "de")
        let expected = Authorization(stored: german)
        #expect(expected.etag == F.plain(german).etag)
    }
}
