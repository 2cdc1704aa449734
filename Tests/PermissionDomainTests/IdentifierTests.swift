import Foundation
import PermissionDomain
import TestSupport
import Testing

/// SPEC §1 formats: valid and invalid ids, level names and purpose strings.
@Suite struct IdentifierTests {
    @Test(arguments: [
        "u", "u42", "alice@example.com", "tenant:42", "a.b_c-d+e", "ABCxyz019", String(repeating: "x", count: 128),
    ])
    func validUsers(raw: String) throws {
        #expect(try UserID(raw).rawValue == raw)
    }

    @Test(arguments: [
        "", String(repeating: "x", count: 129), "a b", "a/b", "a%20", "é", "a\n", "a#b", "a,b", "a?b",
    ])
    func invalidUsers(raw: String) {
        #expect(
            throws: PermissionError.invalidArgument(field: "user", why: "must be 1-128 characters of A-Z a-z 0-9 . _ : @ + -")
        ) {
            try UserID(raw)
        }
    }

    @Test(arguments: [
        "com.example", "com.example.maps", "a.b", "com.ex-ample.Maps2", "x.y.z.w",
        String(repeating: "a", count: 127) + "." + String(repeating: "b", count: 127),
    ])
    func validApps(raw: String) throws {
        #expect(try AppID(raw).rawValue == raw)
    }

    @Test(arguments: [
        "", "com", "com.", ".com", "com..example", "com.exa_mple", "com.example/maps", "com.exämple",
        String(repeating: "a", count: 128) + "." + String(repeating: "b", count: 127), "com example.maps",
    ])
    func invalidApps(raw: String) {
        #expect(throws: PermissionError.self) { try AppID(raw) }
        #expect(!AppID.isValid(raw))
    }

    @Test(arguments: ["location", "camera", "speechRecognition", "x", "a1", "fooBar9", "a" + String(repeating: "b", count: 63)])
    func validServices(raw: String) throws {
        #expect(try ServiceID(raw).rawValue == raw)
    }

    @Test(arguments: [
        "", "Location", "1camera", "foo_bar", "foo-bar", "foo.bar", "a" + String(repeating: "b", count: 64), "all", "cämera",
    ])
    func invalidServices(raw: String) {
        #expect(throws: PermissionError.self) { try ServiceID(raw) }
        #expect(!ServiceID.isValid(raw))
    }

    @Test func allIsReservedWithItsOwnMessage() throws {
        #expect(throws: PermissionError.invalidArgument(field: "service", why: "\"all\" is reserved")) {
            try ServiceID("all")
        }
        #expect(try ResetScope("all") == .all)
        #expect(try ResetScope("camera") == .service(.camera))
    }

    @Test(arguments: ["whenInUse", "always", "full", "x", "level2"])
    func validLevels(raw: String) throws {
        #expect(try Level(raw).rawValue == raw)
    }

    @Test(arguments: ["", "Full", "when-in-use", "2x", "when in use"])
    func invalidLevels(raw: String) {
        #expect(throws: PermissionError.self) { try Level(raw) }
    }

    @Test(arguments: [
        "Your location is used to show nearby stops.", "x", String(repeating: "é", count: 500),
        String(repeating: "a", count: 500), "Emoji 👩‍👩‍👧 count as one character each", "Ünïcödé — “quotes”",
    ])
    func validPurposeStrings(raw: String) throws {
        #expect(try PurposeString(raw).rawValue == raw)
    }

    @Test(arguments: [
        "", String(repeating: "a", count: 501), "line\nbreak", "tab\there", "nul\u{0}", "del\u{7F}", "c1\u{85}",
        "cr\r", String(repeating: "é", count: 501),
    ])
    func invalidPurposeStrings(raw: String) {
        #expect(throws: PermissionError.self) { try PurposeString(raw) }
    }

    /// 500 characters, counted as characters (not bytes or scalars), and at most 2,000 bytes
    /// of UTF-8: 500 four-byte emoji pass; 500 family emoji (18 bytes each) do not.
    @Test func purposeStringLimitCountsCharactersAndCapsBytes() throws {
        #expect(try PurposeString(String(repeating: "😀", count: 500)).rawValue.utf8.count == 2_000)
        #expect(try PurposeString(String(repeating: "é", count: 500)).rawValue.count == 500)
        #expect(throws: PermissionError.self) { try PurposeString(String(repeating: "é", count: 501)) }
        #expect(throws: PermissionError.self) { try PurposeString(String(repeating: "👩‍👩‍👧", count: 500)) }
        #expect(throws: PermissionError.self) { try PurposeString(String(repeating: "👩‍👩‍👧", count: 112)) }
        #expect(try PurposeString(String(repeating: "👩‍👩‍👧", count: 111)).rawValue.count == 111)
    }

    @Test(arguments: ["p1", "kids:camera", "mdm.policy-7"])
    func validPolicyIDs(raw: String) throws {
        #expect(try PolicyID(raw).rawValue == raw)
    }

    @Test(arguments: ["", "a b", "x/y"])
    func invalidPolicyIDs(raw: String) {
        #expect(throws: PermissionError.self) { try PolicyID(raw) }
    }

    @Test(arguments: ["", "a b", "x/y", String(repeating: "a", count: 65)])
    func invalidPromptIDs(raw: String) {
        #expect(throws: PermissionError.self) { try PromptID(raw) }
    }

    @Test func generatedPromptIDsAreValidUniqueAndOrderedByTime() throws {
        let first = PermissionService.Configuration.randomPromptID(Fixtures.t0)
        let second = PermissionService.Configuration.randomPromptID(Fixtures.t0)
        let later = PermissionService.Configuration.randomPromptID(Fixtures.t0.addingTimeInterval(0.001))
        #expect(PromptID.isValid(first.rawValue))
        #expect(first != second)
        #expect(first < later && second < later)
        #expect(first.rawValue.count == 29)
    }

    /// openapi.yaml's `PurposeKey`: `^[A-Za-z][A-Za-z0-9]{0,127}$`.
    @Test(arguments: ["NSCameraUsageDescription", "x", "X1", "K" + String(repeating: "9", count: 127)])
    func validPurposeKeys(key: String) { #expect(App.isValidPurposeKey(key)) }

    @Test(arguments: [
        "", "NS Camera", "NS/Camera", String(repeating: "K", count: 129), "NSLocation.Custom_key-1", "1abc", "a-b",
        "a.b", "_x", "-", "é", "K\u{0}",
    ])
    func invalidPurposeKeys(key: String) { #expect(!App.isValidPurposeKey(key)) }

    @Test func appNamesMustBeDisplayText() {
        #expect(throws: PermissionError.self) {
            try App(id: Fixtures.app, name: "", purposeStrings: [:], updatedAt: Fixtures.t0)
        }
        #expect(throws: PermissionError.self) {
            try App(id: Fixtures.app, name: "Bad\nName", purposeStrings: [:], updatedAt: Fixtures.t0)
        }
    }

    @Test func timesAreTruncatedToMilliseconds() {
        let date = Date(timeIntervalSince1970: 1.2345678)
        #expect(date.truncatedToMilliseconds.millisecondsSince1970 == 1234)
        #expect(Date(millisecondsSince1970: 1234).millisecondsSince1970 == 1234)
        #expect(ManualClock(date).now == Date(millisecondsSince1970: 1234))
        #expect(Date(timeIntervalSince1970: -0.0005).millisecondsSince1970 == -1)
    }

    @Test(arguments: [Int64(0), 1, 999, 1_795_341_600_001, 1_795_341_600_123, 4_102_444_800_999])
    func millisecondsRoundTrip(milliseconds: Int64) {
        for offset in Int64(0)..<1000 {
            let value = milliseconds + offset * 7
            let date = Date(millisecondsSince1970: value)
            #expect(date.millisecondsSince1970 == value)
            #expect(date.truncatedToMilliseconds == date)
        }
    }
}
