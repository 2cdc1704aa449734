import Foundation
import PermissionDomain
import TestSupport
import Testing

/// SPEC §11 on both stores: an app's translated purpose strings, a user's locale and the
/// language a prompt and an authorization record were shown in round-trip, and a save
/// replaces the whole set of translations.
@Suite struct LocalizedRecordTests {
    let u1: UserID
    let maps: AppID

    init() throws {
        u1 = try user("u1")
        maps = try app("com.example.maps")
    }

    @Test(arguments: StoreKind.allCases) func translationsRoundTripAndASaveReplacesThem(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let de = try LanguageTag("de"), ptBR = try LanguageTag("pt-BR"), zhHant = try LanguageTag("zh-Hant")
        let base = [
            "NSCameraUsageDescription": try purpose("Scan tickets."),
            "NSPhotoLibraryUsageDescription": try purpose("Attach photos."),
        ]
        let first = try App(
            id: maps, name: "Maps", purposeStrings: base,
            localizedPurposeStrings: [
                de: [
                    "NSCameraUsageDescription": try purpose("Fahrkarten scannen."),
                    "NSPhotoLibraryUsageDescription": try purpose("Fotos anhängen."),
                ],
                ptBR: ["NSCameraUsageDescription": try purpose("Digitalizar bilhetes.")],
                zhHant: ["NSCameraUsageDescription": try purpose("掃描車票。")],
            ],
            updatedAt: epoch)
        try fixture.store.write { try $0.save(first) }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.app(self.maps) == first)
            #expect(try reader.apps(after: nil, limit: 10) == [first])
        }
        // A second save has only German, with one string: the others are gone.
        let second = try App(
            id: maps, name: "Maps", purposeStrings: base,
            localizedPurposeStrings: [de: ["NSCameraUsageDescription": try purpose("Tickets scannen.")]], updatedAt: epoch + 1)
        try fixture.store.write { try $0.save(second) }
        try fixture.store.read { (reader: any PermissionReader) throws in
            let back = try reader.app(self.maps)
            #expect(back == second)
            #expect(back?.localizedPurposeStrings.keys.map(\.rawValue) == ["de"])
        }
        let none = try App(id: maps, name: "Maps", purposeStrings: base, updatedAt: epoch + 2)
        try fixture.store.write { try $0.save(none) }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.app(self.maps)?.localizedPurposeStrings == [:])
        }
    }

    @Test(arguments: StoreKind.allCases) func localeRoundTripsAlsoOnTheHotPathRead(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let swiss = UserSettings(user: u1, locationServicesEnabled: false, locale: try LanguageTag("de-CH"), updatedAt: epoch)
        let record = StoredAuthorization(
            user: u1, app: maps, service: .location, status: .denied, reason: .userSet, updatedAt: epoch, version: 1)
        try fixture.store.write { writer in
            try writer.save(swiss)
            try writer.save(record)
        }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.userSettings(self.u1) == swiss)
            let both = try reader.authorizationAndSettings(user: self.u1, app: self.maps, service: .location, withSettings: true)
            #expect(both.settings == swiss)
            #expect(both.stored == record)
        }
        // Cleared again.
        let cleared = UserSettings(user: u1, locationServicesEnabled: false, locale: nil, updatedAt: epoch + 1)
        try fixture.store.write { try $0.save(cleared) }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.userSettings(self.u1) == cleared)
            #expect(try reader.userSettings(self.u1)?.locale == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func purposeLanguageOfPromptsAndRecordsRoundTrips(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let de = try LanguageTag("de")
        let german = Prompt(
            id: try PromptID("p-de"), user: u1, app: maps, service: .camera, kind: .request, requestedLevel: .full,
            options: [.allow, .deny], purpose: try purpose("Fahrkarten scannen."), purposeLanguage: de,
            purposeKey: "NSCameraUsageDescription", state: .pending, createdAt: epoch, expiresAt: epoch + 600)
        let plain = Prompt(
            id: try PromptID("p-base"), user: u1, app: maps, service: .microphone, kind: .request, requestedLevel: .full,
            options: [.allow, .deny], purpose: try purpose("Record notes."), purposeKey: "NSMicrophoneUsageDescription",
            state: .pending, createdAt: epoch, expiresAt: epoch + 600)
        let granted = StoredAuthorization(
            user: u1, app: maps, service: .camera, status: .authorized, level: .full, reason: .userConsent,
            purpose: try purpose("Fahrkarten scannen."), purposeLanguage: de, updatedAt: epoch, version: 1)
        try fixture.store.write { writer in
            try writer.save(german)
            try writer.save(plain)
            try writer.save(granted)
        }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.prompt(id: german.id) == german)
            #expect(try reader.prompt(id: plain.id)?.purposeLanguage == nil)
            #expect(try reader.pendingPrompt(user: self.u1, app: self.maps, service: .camera) == german)
            #expect(try reader.prompts(matching: PromptFilter(user: self.u1), after: nil, limit: 10) == [plain, german], "by id")
            #expect(try reader.authorization(user: self.u1, app: self.maps, service: .camera) == granted)
            #expect(try reader.authorizations(matching: AuthorizationFilter(user: self.u1), after: nil, limit: 10) == [granted])
            let hot = try reader.authorizationAndSettings(user: self.u1, app: self.maps, service: .camera, withSettings: true)
            #expect(hot.stored?.purposeLanguage == de)
        }
        // Back to the base string: the language is cleared, not kept from before.
        var base = granted
        base.purpose = try purpose("Scan tickets.")
        base.purposeLanguage = nil
        base.version = 2
        let rebased = base
        try fixture.store.write { try $0.save(rebased) }
        try fixture.store.read { (reader: any PermissionReader) throws in
            #expect(try reader.authorization(user: self.u1, app: self.maps, service: .camera) == rebased)
        }
    }
}
