import Foundation
import PermissionWire
import Testing

/// SPEC §11 over HTTP (on SQLite, and on PostgreSQL with `PERMISSION_TEST_STORE=postgres`):
/// `localizedPurposeStrings` on `PUT /v1/apps/{app}`, `locale` in the user's settings, and
/// prompts, authorizations and audit entries that keep the text and the language shown.
@Suite struct LocalizedPurposeStringTests {
    static let camera = "NSCameraUsageDescription"
    static let german = "Die Kamera scannt Fahrkarten."

    /// Maps with every base string and a German camera string.
    static func registerLocalized(_ app: TestApp) throws {
        let registration = AppRegistration(
            name: "Maps", purposeStrings: TestApp.allPurposes,
            localizedPurposeStrings: ["de": [camera: german], "pt-br": [camera: "A câmera digitaliza bilhetes."]])
        let response = try app.put(registration, as: "com.example.maps")
        #expect(response.status == 201, "\(response.text)")
    }

    @Test func registrationStoresTranslationsInCanonicalCaseAndAuditsTheLanguages() throws {
        let app = try TestApp()
        try Self.registerLocalized(app)
        let read = try app.send(.get, "/v1/apps/com.example.maps").decode(App.self)
        #expect(
            read.localizedPurposeStrings == [
                "de": [Self.camera: Self.german], "pt-BR": [Self.camera: "A câmera digitaliza bilhetes."],
            ])
        let listed = try app.send(.get, "/v1/apps").decode(AppList.self)
        #expect(listed.items.first?.localizedPurposeStrings.count == 2)
        let put = try #require(try app.audit("action=app.put").last)
        #expect(put.detail?["languages"] == "de,pt-BR")
        // PUT replaces the whole set: without the member, no translations are left.
        try app.registerApp()
        #expect(try app.send(.get, "/v1/apps/com.example.maps").decode(App.self).localizedPurposeStrings == [:])
        #expect(try app.audit("action=app.put").last?.detail?["languages"] == nil)
        // An app without translations shows them as an empty object.
        #expect(try app.send(.get, "/v1/apps/com.example.maps").text.contains(#""localizedPurposeStrings":{}"#))
    }

    /// `developmentLanguage`, the base strings' language: stored in its canonical case, read
    /// back, audited, replaced with the strings (absent: none), and a malformed tag refused with
    /// nothing changed.
    @Test func theDevelopmentLanguageIsStoredReadAndReplacedWithTheStrings() throws {
        let app = try TestApp()
        let registration = AppRegistration(name: "Maps", purposeStrings: TestApp.allPurposes, developmentLanguage: "en-gb")
        #expect(try app.put(registration, as: "com.example.maps").status == 201)
        let read = try app.send(.get, "/v1/apps/com.example.maps")
        #expect(try read.decode(App.self).developmentLanguage == "en-GB" && read.text.contains(#""developmentLanguage":"en-GB""#))
        #expect(try app.audit("action=app.put").last?.detail?["developmentLanguage"] == "en-GB")
        let seq = try app.lastSeq()
        for bad in [#""english""#, #""en_GB""#, "null", "7"] {
            let body = #"{"name":"Maps","purposeStrings":{"NSCameraUsageDescription":"Scans."},"developmentLanguage":\#(bad)}"#
            let refused = try app.send(.put, "/v1/apps/com.example.maps", json: body)
            #expect(refused.status == 400 && refused.text.contains("developmentLanguage"), "\(bad): \(refused.text)")
        }
        #expect(try app.lastSeq() == seq, "nothing changed")
        try app.registerApp()  // without the member: none
        let cleared = try app.send(.get, "/v1/apps/com.example.maps")
        #expect(try cleared.decode(App.self).developmentLanguage == nil && !cleared.text.contains("developmentLanguage"))
    }

    @Test(arguments: [
        // (body member, status, problem type, text the detail must contain)
        (
            #"{"de":{"NSMicrophoneUsageDescription":"Mikrofon."}}"#, 422, ProblemType.invalidCombination,
            "localizedPurposeStrings/de/NSMicrophoneUsageDescription"
        ),
        (#"{"de_CH":{"NSCameraUsageDescription":"Kamera."}}"#, 400, .invalidRequest, "localizedPurposeStrings/de_CH"),
        (#"{"deutsch":{"NSCameraUsageDescription":"Kamera."}}"#, 400, .invalidRequest, "localizedPurposeStrings/deutsch"),
        (
            #"{"de":{"NSCameraUsageDescription":"Kamera\u0007."}}"#, 400, .invalidRequest,
            "localizedPurposeStrings/de/NSCameraUsageDescription"
        ),
        (#"{"de":{"NSCameraUsageDescription":""}}"#, 400, .invalidRequest, "localizedPurposeStrings/de/NSCameraUsageDescription"),
        (#"{"de":{}}"#, 400, .invalidRequest, "localizedPurposeStrings/de"),
        (
            #"{"de":{"NSCameraUsageDescription":"A"},"DE":{"NSCameraUsageDescription":"B"}}"#, 400, .invalidRequest,
            "the same language"
        ),
        (#"{"de":"Kamera."}"#, 400, .invalidRequest, "localizedPurposeStrings"),
        (
            #"{"de":{"NSCameraUsageDescription":"\#(String(repeating: "x", count: 501))"}}"#, 400, .invalidRequest,
            "localizedPurposeStrings/de/NSCameraUsageDescription"
        ),
    ]) func invalidTranslationsAreRefusedNamingTheMemberAndChangeNothing(
        _ member: String, _ status: Int, _ type: ProblemType, _ named: String
    ) throws {
        let app = try TestApp()
        try Self.registerLocalized(app)
        let before = try app.send(.get, "/v1/apps/com.example.maps").text
        let seq = try app.lastSeq()
        let body = #"{"name":"Maps","purposeStrings":{"NSCameraUsageDescription":"Scan."},"localizedPurposeStrings":\#(member)}"#
        let response = try app.send(.put, "/v1/apps/com.example.maps", json: body)
        #expect(response.status == status, "\(response.text)")
        #expect(response.problemType == type)
        #expect(response.problem?.detail.contains(named) == true, "\(response.text)")
        #expect(try app.lastSeq() == seq, "no audit entry")
        #expect(try app.send(.get, "/v1/apps/com.example.maps").text == before, "the app is unchanged")
    }

    @Test func moreThan32LanguagesAreRefused() throws {
        let app = try TestApp()
        let letters = "abcdefg".map(String.init)
        let tags = letters.flatMap { first in letters.map { first + $0 } }.prefix(33)
        let many = Dictionary(uniqueKeysWithValues: tags.map { ($0, [Self.camera: "Text."]) })
        let ok = AppRegistration(
            name: "Maps", purposeStrings: [Self.camera: "Scan."], localizedPurposeStrings: many.filter { $0.key != tags.last })
        #expect(
            try app.send(.put, "/v1/apps/com.example.maps", json: String(decoding: try WireEncoder.encode(ok), as: UTF8.self))
                .status == 201)
        let tooMany = AppRegistration(name: "Maps", purposeStrings: [Self.camera: "Scan."], localizedPurposeStrings: many)
        let response = try app.send(
            .put, "/v1/apps/com.example.maps", json: String(decoding: try WireEncoder.encode(tooMany), as: UTF8.self))
        #expect(response.status == 400 && response.problem?.detail.contains("at most 32 languages") == true, "\(response.text)")
    }

    @Test func settingsKeepAValidatedLocaleAndAuditIt() throws {
        let app = try TestApp()
        let path = "/v1/users/u42/settings"
        #expect(try app.send(.get, path).text == #"{"locale":null,"locationServicesEnabled":true}"#)
        let set = try app.send(.put, path, json: #"{"locationServicesEnabled":true,"locale":"DE-ch"}"#)
        #expect(set.status == 200 && set.text == #"{"locale":"de-CH","locationServicesEnabled":true}"#, "\(set.text)")
        #expect(
            try app.send(.get, path).decode(UserSettings.self) == UserSettings(locationServicesEnabled: true, locale: "de-CH"))
        #expect(try app.audit("action=settings.changed").last?.detail == ["locale": "de-CH", "locationServicesEnabled": "true"])

        let seq = try app.lastSeq()
        for bad in [#""de_CH""#, #""german""#, #""""#, "42"] {
            let response = try app.send(.put, path, json: #"{"locationServicesEnabled":true,"locale":\#(bad)}"#)
            #expect(response.status == 400, "\(bad): \(response.text)")
            #expect(
                response.problem?.detail.contains("locale") == true || response.problem?.errors?.first?.pointer == "/locale",
                "\(bad): \(response.text)")
        }
        #expect(try app.lastSeq() == seq)
        #expect(try app.send(.get, path).decode(UserSettings.self).locale == "de-CH", "nothing changed")

        // null (or a missing member: PUT replaces) clears it.
        let cleared = try app.send(.put, path, json: #"{"locationServicesEnabled":true,"locale":null}"#)
        #expect(cleared.text == #"{"locale":null,"locationServicesEnabled":true}"#)
        #expect(try app.audit("action=settings.changed").last?.detail == ["locale": "", "locationServicesEnabled": "true"])
        _ = try app.send(.put, path, json: #"{"locationServicesEnabled":true,"locale":"pt-BR"}"#)
        #expect(try app.send(.put, path, json: #"{"locationServicesEnabled":false}"#).decode(UserSettings.self).locale == nil)
    }

    @Test func aGermanUserGetsTheGermanTextAndTheDecisionKeepsTextAndLanguage() throws {
        let app = try TestApp()
        try Self.registerLocalized(app)
        _ = try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":true,"locale":"de-CH"}"#)
        // The request carries the backend's Accept-Language, which is not the user's: ignored.
        let response = try app.send(
            .post, TestApp.path("u42", "com.example.maps", "camera") + "/request", json: #"{"level":"full"}"#,
            headers: [("Accept-Language", "fr, en;q=0.5")])
        #expect(response.status == 202)
        let prompt = try #require(try response.decode(RequestOutcome.self).prompt)
        #expect(prompt.purpose == Self.german && prompt.purposeLanguage == "de")
        #expect(response.text.contains(#""purposeLanguage":"de""#))
        #expect(try app.send(.get, "/v1/prompts/\(prompt.id)").decode(Prompt.self).purposeLanguage == "de")

        let decided = try app.decide(prompt, "allow")
        #expect(decided.authorization.purpose == Self.german && decided.authorization.purposeLanguage == "de")
        let read = try app.send(.get, TestApp.path("u42", "com.example.maps", "camera"))
        #expect(read.text.contains(#""purpose":"Die Kamera scannt Fahrkarten.","purposeLanguage":"de","reason""#), "\(read.text)")
        #expect(try read.decode(Authorization.self) == decided.authorization)

        let entries = try app.audit("user=u42&service=camera")
        #expect(entries.map(\.action) == ["prompt.created", "prompt.answered"])
        #expect(entries.allSatisfy { $0.purpose == Self.german && $0.detail?["purposeLanguage"] == "de" })
        let verify = try app.send(.get, "/v1/audit/verify")
        #expect(verify.status == 200)
        #expect(try verify.decode(AuditVerification.self).valid, "\(verify.text)")
    }

    @Test func withoutALocaleOrAMatchTheBaseStringIsShownAndNoLanguageSent() throws {
        let app = try TestApp()
        try Self.registerLocalized(app)
        _ = try app.send(.put, "/v1/users/u43/settings", json: #"{"locationServicesEnabled":true,"locale":"ja"}"#)
        for user in ["u42", "u43"] {
            let prompt = try app.prompt("camera", "full", user: user)
            #expect(prompt.purpose == "Purpose for \(Self.camera)." && prompt.purposeLanguage == nil)
            let decided = try app.decide(prompt, "deny")
            #expect(decided.authorization.purposeLanguage == nil)
            let read = try app.send(.get, TestApp.path(user, "com.example.maps", "camera")).text
            #expect(!read.contains("purposeLanguage"))
            #expect(try app.audit("user=\(user)").allSatisfy { $0.detail?["purposeLanguage"] == nil })
        }
        // pt-PT finds no pt-PT and no pt: pt-BR is another language, not a fallback.
        _ = try app.send(.put, "/v1/users/u44/settings", json: #"{"locationServicesEnabled":true,"locale":"pt-PT"}"#)
        #expect(try app.prompt("camera", "full", user: "u44").purposeLanguage == nil)
        _ = try app.send(.put, "/v1/users/u45/settings", json: #"{"locationServicesEnabled":true,"locale":"pt-BR"}"#)
        #expect(try app.prompt("camera", "full", user: "u45").purposeLanguage == "pt-BR")
    }
}
