import Foundation
import PermissionWire
import Testing

/// The hand-written encoders against Foundation: byte-for-byte against `JSONEncoder` (sorted
/// keys, unescaped slashes), and value-for-value after a `JSONSerialization` round trip.
@Suite struct HotEncoderTests {
    static let trickyStrings: [String] = [
        "", "plain", "quote \" and backslash \\", "slash / stays", "\u{0}\u{1}\u{7}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1B}\u{1F}",
        "DEL \u{7F}", "line sep \u{2028} para sep \u{2029}", "é ü ß 中文 日本語", "emoji 😀👩‍👩‍👧 flags 🇫🇷",
        "noncharacter \u{FFFF} \u{FFFE} bmp end", "astral \u{10FFFF}", "</script><script>alert(1)</script>",
        "\\u0041 is not unescaped", "tab\tinside", "cr\rlf\n", String(repeating: "x\"", count: 300),
        "combining e\u{301} vs \u{E9}",
    ]

    static func foundationJSON<T: Encodable>(_ value: T) throws -> [UInt8] {
        try WireEncoder.encode(value)
    }

    @Test(arguments: trickyStrings)
    func authorizationMatchesJSONEncoderByteForByte(text: String) throws {
        var value = Fixtures.onceGrant
        value.purpose = text
        value.user = text
        value.level = text
        let hot = value.jsonBytes
        #expect(hot == (try Self.foundationJSON(value)))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(hot)) as? [String: Any])
        #expect(parsed["purpose"] as? String == text)
        #expect(parsed["user"] as? String == text)
        #expect(parsed["level"] as? String == text)
        #expect(try WireDecoder.decodeResponse(Authorization.self, from: hot) == value)
    }

    @Test(arguments: [Fixtures.authorization, Fixtures.undetermined, Fixtures.onceGrant])
    func authorizationShapesMatchJSONEncoder(value: Authorization) throws {
        #expect(value.jsonBytes == (try Self.foundationJSON(value)))
        #expect(try WireDecoder.decodeResponse(Authorization.self, from: value.jsonBytes) == value)
    }

    @Test(arguments: trickyStrings + ["de", "pt-BR"])
    func purposeLanguageIsWrittenAfterPurposeAndOnlyWhenSet(language: String) throws {
        var value = Fixtures.authorization
        value.purpose = "Die Kamera scannt Fahrkarten."
        value.purposeLanguage = language
        let hot = value.jsonBytes
        #expect(hot == (try Self.foundationJSON(value)))
        #expect(try WireDecoder.decodeResponse(Authorization.self, from: hot) == value)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(hot)) as? [String: Any])
        #expect(parsed["purposeLanguage"] as? String == language)
        value.purposeLanguage = nil
        #expect(!String(decoding: value.jsonBytes, as: UTF8.self).contains("purposeLanguage"))
    }

    /// `purposeChanged` sorts between `purpose` and `purposeLanguage`, and is absent unless set.
    @Test(arguments: [nil, "de"])
    func purposeChangedIsWrittenAfterPurposeAndOnlyWhenSet(language: String?) throws {
        var value = Fixtures.authorization
        value.purposeLanguage = language
        value.purposeChanged = true
        let hot = value.jsonBytes
        #expect(hot == (try Self.foundationJSON(value)))
        #expect(try WireDecoder.decodeResponse(Authorization.self, from: hot) == value)
        let text = String(decoding: hot, as: UTF8.self)
        #expect(text.contains(#""purposeChanged":true"#))
        value.purposeChanged = nil
        #expect(!String(decoding: value.jsonBytes, as: UTF8.self).contains("purposeChanged"))
    }

    @Test func aRegistrationAnswerCountsReconsentedOnlyWhenAsked() throws {
        let plain = #"{"id":"com.example.maps","name":"Maps","purposeStrings":{},"updatedAt":"2026-11-22T10:00:00.000Z"}"#
        let app = try WireDecoder.decodeResponse(App.self, from: Array(plain.utf8))
        #expect(app.reconsented == nil)
        #expect(!String(decoding: try WireEncoder.encode(app), as: UTF8.self).contains("reconsented"))
        var asked = app
        asked.reconsented = 3
        #expect(try WireDecoder.decodeResponse(App.self, from: try WireEncoder.encode(asked)).reconsented == 3)
    }

    @Test func anAppFromAServerWithoutTranslationsDecodesWithNone() throws {
        let old = #"{"id":"com.example.maps","name":"Maps","purposeStrings":{},"updatedAt":"2026-11-22T10:00:00.000Z"}"#
        #expect(try WireDecoder.decodeResponse(App.self, from: Array(old.utf8)).localizedPurposeStrings == [:])
        let settings = try WireEncoder.encode(UserSettings(locationServicesEnabled: true))
        #expect(String(decoding: settings, as: UTF8.self) == #"{"locale":null,"locationServicesEnabled":true}"#)
    }

    @Test func authorizationHasSpecMembersWithNullsAndNoLevelUnlessAuthorized() throws {
        let text = String(decoding: Fixtures.undetermined.jsonBytes, as: UTF8.self)
        #expect(
            text == #"{"app":"com.example.maps","expiresAt":null,"once":false,"provisional":false,"purpose":null,"#
                + #""reason":"default","service":"location","status":"notDetermined","updatedAt":"2026-11-22T10:00:00.000Z","#
                + #""user":"u42","version":0}"#)
        let parsed = try #require(
            try JSONSerialization.jsonObject(with: Data(Fixtures.authorization.jsonBytes)) as? [String: Any])
        #expect(
            Set(parsed.keys) == [
                "user", "app", "service", "status", "level", "provisional", "once", "expiresAt",
                "reason", "purpose", "updatedAt", "version",
            ])
        #expect(parsed["expiresAt"] is NSNull)
    }

    @Test func appendsAfterExistingBytes() {
        var bytes = Array("prefix ".utf8)
        Fixtures.authorization.jsonBytes(into: &bytes)
        #expect(bytes == Array("prefix ".utf8) + Fixtures.authorization.jsonBytes)
    }

    @Test(arguments: [Int64.min, -1, 0, 7, 1_000_000, Int64.max])
    func integersMatchJSONEncoder(version: Int64) throws {
        var value = Fixtures.authorization
        value.version = version
        #expect(value.jsonBytes == (try Self.foundationJSON(value)))
    }

    /// Strings are scanned eight bytes at a time until a byte needs escaping: one at every
    /// offset around the word boundaries, and non-ASCII beside it, still match `JSONEncoder`.
    @Test func escapesAreFoundAtEveryOffset() throws {
        for offset in 0..<24 {
            for special in ["\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "\u{7F}"] {
                var characters = Array(repeating: "a", count: 24)
                characters[offset] = special
                var value = Fixtures.authorization
                value.purpose = characters.joined()
                #expect(value.jsonBytes == (try Self.foundationJSON(value)), "\(special) at \(offset)")
            }
        }
    }

    @Test func problemCarriesRFC9457Members() throws {
        let parsed = try #require(
            try JSONSerialization.jsonObject(with: Data(try WireEncoder.encode(Fixtures.problem))) as? [String: Any])
        #expect(parsed["type"] as? String == "https://permissions.example/problems/missing-purpose-string")
        #expect(parsed["status"] as? Int == 422)
        #expect(parsed["title"] as? String == "Missing purpose string")
        #expect(parsed["key"] as? String == "NSLocationAlwaysAndWhenInUseUsageDescription")
        #expect(parsed["requestId"] as? String == "r-9")
        #expect(parsed["allowed"] == nil)
    }
}
