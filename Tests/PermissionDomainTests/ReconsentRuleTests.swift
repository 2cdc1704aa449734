import Foundation
import PermissionDomain
import TestSupport
import Testing

/// SPEC §11 re-consent on values: which stored records count as granted under a purpose string
/// the app has since changed, in the language they were shown in, and what re-consent writes.
@Suite struct ReconsentRuleTests {
    typealias F = Fixtures
    static let camera = "NSCameraUsageDescription"
    static let whenInUse = "NSLocationWhenInUseUsageDescription"
    static let always = "NSLocationAlwaysAndWhenInUseUsageDescription"

    static func granted(
        _ service: ServiceID, _ level: Level, purpose: String, language: String? = nil, status: AuthorizationStatus = .authorized
    ) throws -> StoredAuthorization {
        var stored = F.stored(service, status, status == .authorized ? level : nil, reason: .userConsent, version: 3)
        stored.purpose = try PurposeString(purpose)
        stored.purposeLanguage = try language.map { try LanguageTag($0) }
        return stored
    }

    /// Maps with every base string, `changes` applied, and the translations given.
    static func app(
        _ changes: [String: String] = [:], localized: [String: [String: String]] = [:]
    ) throws -> App {
        var strings = F.allPurposeStrings
        for (key, text) in changes { strings[key] = try PurposeString(text) }
        var translations: [LanguageTag: [String: PurposeString]] = [:]
        for (language, texts) in localized {
            translations[try LanguageTag(language)] = try texts.mapValues { try PurposeString($0) }
        }
        return try App(id: F.app, name: "Maps", purposeStrings: strings, localizedPurposeStrings: translations, updatedAt: F.t0)
    }

    @Test func aGrantUnderTheCurrentTextHasNotChangedAndOneUnderAnOldTextHas() throws {
        let stored = try Self.granted(.camera, .full, purpose: "Purpose of \(Self.camera).")
        #expect(!Rules.purposeChanged(stored: stored, service: F.service(.camera), app: try Self.app()))
        let changed = try Self.app([Self.camera: "Scans tickets and receipts."])
        #expect(Rules.purposeChanged(stored: stored, service: F.service(.camera), app: changed))
    }

    @Test func anotherKeysChangeDoesNotCountEvenWhenTheTextsWereEqual() throws {
        // Camera and microphone share one text; only the microphone's changes.
        let shared = "Records video with sound."
        let stored = try Self.granted(.camera, .full, purpose: shared)
        let before = try Self.app([Self.camera: shared, "NSMicrophoneUsageDescription": shared])
        let after = try Self.app([Self.camera: shared, "NSMicrophoneUsageDescription": "Records voice notes."])
        #expect(!Rules.purposeChanged(stored: stored, service: F.service(.camera), app: before))
        #expect(!Rules.purposeChanged(stored: stored, service: F.service(.camera), app: after))
        // The microphone grant under the shared text has changed.
        let microphone = try Self.granted(.microphone, .full, purpose: shared)
        #expect(Rules.purposeChanged(stored: microphone, service: F.service(.microphone), app: after))
    }

    @Test func everyKeyOfTheServiceCountsBecauseTheKeyShownIsNotKept() throws {
        // The upgrade prompt shows the Always text; "Keep While Using" keeps whenInUse under it.
        let kept = try Self.granted(.location, .whenInUse, purpose: "Purpose of \(Self.always).")
        #expect(!Rules.purposeChanged(stored: kept, service: F.service(.location), app: try Self.app()))
        let changed = try Self.app([Self.always: "Tells you when your stop is near."])
        #expect(Rules.purposeChanged(stored: kept, service: F.service(.location), app: changed))
        let whenInUse = try Self.granted(.location, .always, purpose: "Purpose of \(Self.whenInUse).")
        #expect(!Rules.purposeChanged(stored: whenInUse, service: F.service(.location), app: changed))
    }

    @Test func aTranslatedGrantIsComparedWithItsLanguageOnly() throws {
        let german = try Self.granted(.camera, .full, purpose: "Die Kamera scannt Fahrkarten.", language: "de")
        let current = try Self.app(localized: ["de": [Self.camera: "Die Kamera scannt Fahrkarten."]])
        #expect(!Rules.purposeChanged(stored: german, service: F.service(.camera), app: current))
        // The base string changing leaves the German grant alone ...
        let baseChanged = try Self.app(
            [Self.camera: "Scans tickets and receipts."], localized: ["de": [Self.camera: "Die Kamera scannt Fahrkarten."]])
        #expect(!Rules.purposeChanged(stored: german, service: F.service(.camera), app: baseChanged))
        // ... but not the translation changing, nor the translation going away.
        let germanChanged = try Self.app(localized: ["de": [Self.camera: "Die Kamera scannt Fahrkarten und Belege."]])
        #expect(Rules.purposeChanged(stored: german, service: F.service(.camera), app: germanChanged))
        #expect(Rules.purposeChanged(stored: german, service: F.service(.camera), app: try Self.app()))
        // A base-string grant is not changed by a new translation.
        let base = try Self.granted(.camera, .full, purpose: "Purpose of \(Self.camera).")
        #expect(!Rules.purposeChanged(stored: base, service: F.service(.camera), app: current))
    }

    @Test func denialsGrantsWithoutAPurposeAndUnregisteredAppsDoNotCount() throws {
        let changed = try Self.app([Self.camera: "Scans tickets and receipts."])
        let denied = try Self.granted(.camera, .full, purpose: "Purpose of \(Self.camera).", status: .denied)
        #expect(!Rules.purposeChanged(stored: denied, service: F.service(.camera), app: changed))
        #expect(Rules.reconsent(stored: denied, service: F.service(.camera), app: changed) == nil, "a denial stays")
        let setInSettings = F.stored(.camera, .authorized, .full, reason: .userSet, version: 2)
        #expect(!Rules.purposeChanged(stored: setInSettings, service: F.service(.camera), app: changed))
        let granted = try Self.granted(.camera, .full, purpose: "Purpose of \(Self.camera).")
        #expect(!Rules.purposeChanged(stored: granted, service: F.service(.camera), app: nil))
    }

    @Test func reconsentClearsTheGrantWithReasonPurposeChangedAndKeepsDeclinedLevels() throws {
        var stored = try Self.granted(.photos, .limited, purpose: "Purpose of NSPhotoLibraryUsageDescription.")
        stored.declinedLevels = [.full]
        let changed = try Self.app(["NSPhotoLibraryUsageDescription": "Picks photos for your profile."])
        let next = try #require(Rules.reconsent(stored: stored, service: F.service(.photos), app: changed))
        #expect(next.status == .notDetermined && next.reason == .purposeChanged)
        #expect(next.level == nil && next.purpose == nil && next.purposeLanguage == nil && next.expiresAt == nil)
        #expect(next.declinedLevels == [.full] && next.version == stored.version, "the service sets the version")
        #expect(Rules.reconsent(stored: stored, service: F.service(.photos), app: try Self.app()) == nil)
    }

    @Test func theFlagChangesTheEntityTagOnlyWhenSet() throws {
        let stored = try Self.granted(.camera, .full, purpose: "Purpose of \(Self.camera).")
        let view = F.plain(stored)
        #expect(view.with(purposeChanged: false) == view)
        let flagged = view.with(purposeChanged: true)
        #expect(flagged.purposeChanged && flagged.etag != view.etag && flagged.version == view.version)
    }
}
