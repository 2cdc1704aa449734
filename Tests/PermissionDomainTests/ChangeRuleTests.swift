import Foundation
import PermissionDomain
import TestSupport
import Testing

/// SPEC §4 Settings, Revoke, Reset, Lifecycle: the pure changes.
@Suite struct ChangeRuleTests {
    typealias F = Fixtures
    static let provisional = F.stored(
        .location, .authorized, .always, provisional: true, reason: .userConsent, declined: [], version: 3)

    struct SettingsRow: Sendable, CustomTestStringConvertible {
        let name: String
        let stored: StoredAuthorization
        let status: AuthorizationStatus
        let level: Level?
        let expectedLevel: Level?
        let declined: [Level]
        var testDescription: String { name }
    }

    static let settingsRows: [SettingsRow] = [
        SettingsRow(
            name: "authorize always ends provisional", stored: provisional, status: .authorized, level: .always,
            expectedLevel: .always, declined: []),
        SettingsRow(
            name: "explicit whenInUse", stored: provisional, status: .authorized, level: .whenInUse, expectedLevel: .whenInUse,
            declined: []),
        SettingsRow(name: "deny", stored: provisional, status: .denied, level: nil, expectedLevel: nil, declined: []),
        SettingsRow(
            name: "ask next time forgets declined",
            stored: F.stored(.calendars, .denied, declined: [.full, .writeOnly], version: 1), status: .notDetermined, level: nil,
            expectedLevel: nil, declined: []),
        SettingsRow(
            name: "granting full forgets declined full",
            stored: F.stored(.calendars, .authorized, .writeOnly, declined: [.full], version: 1), status: .authorized,
            level: .full, expectedLevel: .full, declined: []),
        SettingsRow(
            name: "granting writeOnly keeps declined full",
            stored: F.stored(.calendars, .denied, declined: [.full, .writeOnly], version: 1), status: .authorized,
            level: .writeOnly, expectedLevel: .writeOnly, declined: [.full]),
        SettingsRow(
            name: "ends a once grant",
            stored: F.stored(.location, .authorized, .whenInUse, once: true, expiresAt: F.t0, version: 1), status: .authorized,
            level: .whenInUse, expectedLevel: .whenInUse, declined: []),
    ]

    @Test(arguments: settingsRows)
    func settingsChange(row: SettingsRow) throws {
        let next = try Rules.settings(
            stored: row.stored, effective: F.plain(row.stored), service: F.service(row.stored.service), app: F.registeredApp(),
            status: row.status,
            level: row.level, now: F.t0)
        #expect(next.status == row.status && next.level == row.expectedLevel)
        #expect(!next.provisional && !next.once && next.expiresAt == nil)
        #expect(next.reason == .userSet && next.purpose == nil)
        #expect(next.declinedLevels == row.declined)
    }

    struct BadSettings: Sendable, CustomTestStringConvertible {
        let name: String
        let status: AuthorizationStatus
        let level: Level?
        let error: PermissionError
        var testDescription: String { name }
    }

    static let badSettings: [BadSettings] = [
        BadSettings(
            name: "level the service lacks", status: .authorized, level: .full,
            error: .unknownLevel(level: "full", service: .location, allowed: [.whenInUse, .always])),
        BadSettings(
            name: "authorized without level", status: .authorized, level: nil,
            error: .invalidCombination(field: "level", why: "required when status is authorized")),
        BadSettings(
            name: "denied with level", status: .denied, level: .always,
            error: .invalidCombination(field: "level", why: "only an authorized status has a level")),
        BadSettings(
            name: "restricted", status: .restricted, level: nil,
            error: .invalidArgument(field: "status", why: "restricted is set by policies, not in settings")),
    ]

    @Test(arguments: badSettings)
    func settingsRefusals(row: BadSettings) {
        #expect(throws: row.error) {
            try Rules.settings(
                stored: Self.provisional, effective: F.plain(Self.provisional), service: F.service(.location),
                app: F.registeredApp(), status: row.status,
                level: row.level, now: F.t0)
        }
    }

    @Test func restrictedCannotBeChangedOrRevoked() {
        let stored = F.stored(.camera, .authorized, .full, version: 1)
        let restricted = Rules.effective(
            stored: stored, service: F.service(.camera), policies: [F.policy("p", .camera, .restrict)], settings: nil, now: F.t0)
        let conflict = PermissionError.restrictedByPolicy
        #expect(throws: conflict) {
            try Rules.settings(
                stored: stored, effective: restricted, service: F.service(.camera), app: F.registeredApp(), status: .denied,
                level: nil, now: F.t0)
        }
        #expect(throws: conflict) { try Rules.revoke(stored: stored, effective: restricted) }
    }

    /// An allow policy decides the effective status too: the change would answer `authorized`
    /// as before, so it is refused as the consent pages refuse it (a managed setting).
    @Test func grantedByAnAllowPolicyCannotBeChangedOrRevoked() throws {
        let stored = F.stored(.camera, .denied, version: 1)
        let allow = F.policy("p", .camera, .allow, .full)
        let granted = Rules.effective(
            stored: stored, service: F.service(.camera), policies: [allow], settings: nil, now: F.t0)
        #expect(granted.status == .authorized && granted.reason == .policy)
        #expect(throws: PermissionError.grantedByPolicy) {
            try Rules.settings(
                stored: stored, effective: granted, service: F.service(.camera), app: F.registeredApp(), status: .denied,
                level: nil, now: F.t0)
        }
        #expect(throws: PermissionError.grantedByPolicy) { try Rules.revoke(stored: stored, effective: granted) }
    }

    /// As iOS Settings offers an app only the levels its Info.plist describes: authorizing
    /// needs the level's purpose strings (both location keys for Always); taking access away
    /// never does.
    @Test func authorizingNeedsTheLevelsPurposeStrings() throws {
        let stored = F.stored(.location, version: 1)
        func set(_ app: App?, _ status: AuthorizationStatus, _ level: Level?) throws(PermissionError) -> StoredAuthorization {
            try Rules.settings(
                stored: stored, effective: F.plain(stored), service: F.service(.location), app: app, status: status,
                level: level, now: F.t0)
        }
        let always = "NSLocationAlwaysAndWhenInUseUsageDescription"
        let whenInUse = "NSLocationWhenInUseUsageDescription"
        let onlyWhenInUse = F.registeredApp(without: [always])
        #expect(try set(onlyWhenInUse, .authorized, .whenInUse).level == .whenInUse)
        #expect(throws: PermissionError.missingPurposeString(key: always)) { try set(onlyWhenInUse, .authorized, .always) }
        #expect(throws: PermissionError.missingPurposeString(key: whenInUse)) {
            try set(F.registeredApp(without: [whenInUse]), .authorized, .always)
        }
        #expect(throws: PermissionError.missingPurposeString(key: whenInUse)) { try set(nil, .authorized, .whenInUse) }
        #expect(try set(nil, .denied, nil).status == .denied, "never registered: it can still be denied")
        #expect(try set(nil, .notDetermined, nil).status == .notDetermined)
    }

    @Test func revokeDeniesUserSet() throws {
        let next = try Rules.revoke(stored: Self.provisional, effective: F.plain(Self.provisional))
        #expect(next.status == .denied && next.level == nil && next.reason == .userSet && !next.provisional)
    }

    @Test(arguments: [Reason.reset, .reinstall])
    func resetClearsEverything(reason: Reason) throws {
        let stored = F.stored(.calendars, .authorized, .writeOnly, reason: .userConsent, declined: [.full], version: 9)
        let next = try #require(Rules.reset(stored: stored, reason: reason))
        #expect(next.status == .notDetermined && next.reason == reason && next.level == nil && next.declinedLevels.isEmpty)
        #expect(next.version == 9)
        #expect(Rules.reset(stored: F.stored(.camera, reason: .reset, version: 2), reason: reason) == nil, "nothing to change")
    }

    @Test func endOnceOnlyEndsOnceGrants() throws {
        let once = F.stored(.location, .authorized, .whenInUse, once: true, expiresAt: F.t0, reason: .userConsent, version: 1)
        let ended = try #require(Rules.endOnce(stored: once))
        #expect(ended.status == .notDetermined && ended.reason == .expired && !ended.once && ended.expiresAt == nil)
        #expect(Rules.endOnce(stored: F.stored(.location, .authorized, .whenInUse, version: 1)) == nil)
        #expect(Rules.endOnce(stored: F.stored(.location)) == nil)
    }
}
