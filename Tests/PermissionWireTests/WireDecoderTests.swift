import PermissionWire
import Testing

/// The strict request decoder: unknown members, wrong types, missing members and bad enum
/// values, each with a path and a message a person can act on.
@Suite struct WireDecoderTests {
    static func failure<T: RequestBody>(_ type: T.Type, _ json: String) -> WireDecodingError? {
        do {
            _ = try WireDecoder.decode(type, from: Array(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func unknownMemberIsATypoNotIgnored() throws {
        let error = try #require(Self.failure(AccessRequest.self, #"{"levle":"always"}"#))
        #expect(error.kind == .unknownMember)
        #expect(error.path == "/levle")
        #expect(error.description == "levle: unknown member 'levle'")
        #expect(error.problemType == .unknownMember)
    }

    @Test func unknownMemberBesideKnownOnes() throws {
        let error = try #require(Self.failure(SettingsChange.self, #"{"status":"denied","level":null,"force":true}"#))
        #expect(error.message == "unknown member 'force'")
    }

    /// An optional member whose schema has no null may be left out, not sent as null
    /// (schemathesis found `"localizedPurposeStrings": null` accepted).
    @Test func anOptionalObjectMayBeLeftOutButNotNull() throws {
        let error = try #require(
            Self.failure(AppRegistration.self, #"{"name":"M","purposeStrings":{},"localizedPurposeStrings":null}"#))
        #expect(error.kind == .invalidValue)
        #expect(error.path == "/localizedPurposeStrings")
        #expect(error.problemType == .invalidRequest)
        let absent = try WireDecoder.decode(AppRegistration.self, from: Array(#"{"name":"M","purposeStrings":{}}"#.utf8))
        #expect(absent.localizedPurposeStrings == nil)
    }

    @Test func freeFormDictionariesAcceptAnyKeys() throws {
        let body = try WireDecoder.decode(
            AppRegistration.self, from: Array(#"{"name":"M","purposeStrings":{"Anything":"x"}}"#.utf8))
        #expect(body.purposeStrings == ["Anything": "x"])
    }

    @Test(arguments: [
        (#"{"level":5}"#, "/level", "level: expected a string"),
        (#"{"level":null}"#, "/level", "level: expected a string, found null"),
        (#"{}"#, "/level", "level: required member is missing"),
        (#"{"level":["always"]}"#, "/level", "level: expected a string"),
    ])
    func accessRequestErrors(json: String, path: String, description: String) throws {
        let error = try #require(Self.failure(AccessRequest.self, json))
        #expect(error.kind == .invalidValue)
        #expect(error.path == path)
        #expect(error.description == description)
        #expect(error.problemType == .invalidRequest)
    }

    @Test func badEnumValueListsTheAllowedOnes() throws {
        let error = try #require(Self.failure(SettingsChange.self, #"{"status":"allowed"}"#))
        #expect(error.description == "status: expected one of notDetermined, restricted, denied, authorized")
        let event = try #require(Self.failure(LifecycleEvent.self, #"{"event":"crashed"}"#))
        #expect(event.description == "event: expected one of sessionEnded, reinstalled, backgroundLocationUsed")
    }

    @Test func nestedPathsInFreeFormMembers() throws {
        let error = try #require(
            Self.failure(AppRegistration.self, #"{"name":"M","purposeStrings":{"NSCameraUsageDescription":1}}"#))
        #expect(error.path == "/purposeStrings/NSCameraUsageDescription")
        #expect(error.message == "expected a string")
        let keys = try #require(Self.failure(ServiceRegistration.self, #"{"levels":["a",2],"purposeKeys":{}}"#))
        #expect(keys.path == "/levels/1")
    }

    @Test func booleansAreNotStrings() throws {
        let error = try #require(Self.failure(UserSettings.self, #"{"locationServicesEnabled":"false"}"#))
        #expect(error.description == "locationServicesEnabled: expected a boolean")
    }

    @Test func topLevelMustBeAnObject() throws {
        let error = try #require(Self.failure(Decision.self, #"["allow"]"#))
        #expect(error.kind == .invalidValue)
        #expect(error.description == "expected an object, found an array")
    }

    @Test func strictReaderRunsFirst() throws {
        let duplicate = try #require(Self.failure(SettingsChange.self, #"{"status":"denied","status":"authorized"}"#))
        #expect(duplicate.kind == .invalidJSON)
        #expect(duplicate.message.hasPrefix("duplicate member 'status'"))
        #expect(duplicate.problemType == .invalidJSON)
        let tooLarge = try #require(Self.failure(Decision.self, #"{"choice":""# + String(repeating: "a", count: 70_000) + #""}"#))
        #expect(tooLarge.kind == .tooLarge)
        #expect(tooLarge.problemType == .payloadTooLarge)
    }

    @Test func nullOptionalsAndAbsentOptionalsAreTheSame() throws {
        let a = try WireDecoder.decode(
            PolicyDefinition.self, from: Array(#"{"service":"camera","app":null,"user":"u42","effect":"restrict"}"#.utf8))
        let b = try WireDecoder.decode(
            PolicyDefinition.self, from: Array(#"{"service":"camera","user":"u42","effect":"restrict"}"#.utf8))
        #expect(a == b)
        #expect(a == PolicyDefinition(service: "camera", user: "u42", effect: .restrict))
    }

    @Test func eachBodyDeclaresExactlyItsMembers() {
        #expect(AccessRequest.allowedKeys == ["level"])
        #expect(Decision.allowedKeys == ["choice", "until"])
        #expect(SettingsChange.allowedKeys == ["status", "level", "until"])
        #expect(LifecycleEvent.allowedKeys == ["event", "usedAt"])
        #expect(UserSettings.allowedKeys == ["locationServicesEnabled", "locale"])
        #expect(PolicyDefinition.allowedKeys == ["service", "app", "user", "effect", "level"])
        #expect(ResetRequest.allowedKeys == ["service", "app", "user"])
        #expect(
            AppRegistration.allowedKeys == [
                "name", "purposeStrings", "localizedPurposeStrings", "developmentLanguage", "reconsent", "version",
            ])
        #expect(ServiceRegistration.allowedKeys == ["levels", "purposeKeys"])
        #expect(NewAPIKey.allowedKeys == ["role", "app", "name"])
    }

    @Test func responseDecodingReportsBadTimestamps() throws {
        var json = String(decoding: Fixtures.authorization.jsonBytes, as: UTF8.self)
        json = json.replacingOccurrences(of: "2026-11-22T10:00:00.000Z", with: "yesterday")
        do {
            _ = try WireDecoder.decodeResponse(Authorization.self, from: Array(json.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.path == "/updatedAt")
            #expect(error.message.contains("RFC 3339"))
        }
    }

    /// The settings body is built from the members `StrictJSON` parsed (`MemberwiseRequestBody`),
    /// not by `JSONDecoder`: every combination of these values for its three members (absent
    /// included), and bodies that are not objects, decode to the same value or fail with the
    /// same error (kind, path, message) both ways.
    @Test func theSettingsBodyDecodesFromItsMembersAsJSONDecoderWould() throws {
        let values: [String?] = [
            nil, "null", #""denied""#, #""authorized""#, #""always""#, #""\u0064enied""#, #""""#, #""Denied""#,
            #""2026-12-01T10:00:00.000Z""#, #""2026-12-01T12:00:00+02:00""#, #""2026-13-01T10:00:00Z""#, "5", "-1.5e3",
            "true", "[]", #"["denied"]"#, "{}", #"{"status":"denied"}"#,
        ]
        var bodies = ["[]", "null", #""denied""#, "5", "{}"]
        for status in values {
            for level in values {
                for until in values {
                    let members = [("status", status), ("level", level), ("until", until)].compactMap { key, value in
                        value.map { #""\#(key)":\#($0)"# }
                    }
                    bodies.append("{" + members.joined(separator: ",") + "}")
                }
            }
        }
        var decoded = 0
        for body in bodies {
            let memberwise = Self.outcome(body, memberwise: true)
            let jsonDecoder = Self.outcome(body, memberwise: false)
            #expect(memberwise == jsonDecoder, "\(body)")
            if case .success = memberwise { decoded += 1 }
        }
        #expect(bodies.count == 5 + 18 * 18 * 18)
        // Valid: 3 statuses (one escaped) x 11 levels (absent, null, any string) x 3 untils
        // (absent, two timestamps); the checks of `level` and `until` against the status are the
        // service's.
        #expect(decoded == 3 * 11 * 3)
    }

    private static func outcome(_ json: String, memberwise: Bool) -> Result<SettingsChange, WireDecodingError> {
        Result { () throws(WireDecodingError) in
            try WireDecoder.decode(SettingsChange.self, from: Array(json.utf8), memberwise: memberwise)
        }
    }
}
