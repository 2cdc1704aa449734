import Foundation
import PermissionDomain
import TestSupport
import Testing

/// SPEC §3: the effective status and the order of its rules.
@Suite struct EffectiveStatusTests {
    typealias F = Fixtures
    static let grantedWhenInUse = F.stored(.location, .authorized, .whenInUse, reason: .userConsent, version: 3)
    static let switchOff = UserSettings(user: F.user, locationServicesEnabled: false)

    @Test func neverWrittenIsNotDeterminedDefaultVersionZero() {
        let view = F.plain(.initial(user: F.user, app: F.app, service: .camera))
        #expect(view.status == .notDetermined && view.reason == .default && view.version == 0)
        #expect(view.level == nil && view.updatedAt == nil && view.purpose == nil)
    }

    @Test func storedChoiceIsReturnedAsIs() {
        let view = F.plain(Self.grantedWhenInUse)
        #expect(view.status == .authorized && view.level == .whenInUse && view.reason == .userConsent && view.version == 3)
    }

    @Test func restrictPolicyMakesRestricted() {
        let view = Rules.effective(
            stored: Self.grantedWhenInUse, service: F.service(.location), policies: [F.policy("p", .location, .restrict)],
            settings: nil, now: F.t0)
        #expect(view.status == .restricted && view.reason == .policy && view.level == nil && view.version == 3)
    }

    @Test func allowPolicyAuthorizesAtItsLevel() {
        let view = Rules.effective(
            stored: F.stored(.camera, .denied, reason: .userSet, version: 2), service: F.service(.camera),
            policies: [F.policy("p", .camera, .allow, .full)], settings: nil, now: F.t0)
        #expect(view.status == .authorized && view.level == .full && view.reason == .policy && view.version == 2)
    }

    @Test func allowPolicyDoesNotLowerAStrongerStoredGrant() {
        let stored = F.stored(.photos, .authorized, .full, reason: .userConsent, version: 1)
        let view = Rules.effective(
            stored: stored, service: F.service(.photos), policies: [F.policy("p", .photos, .allow, .addOnly)],
            settings: nil, now: F.t0)
        #expect(view.level == .full && view.reason == .userConsent)
    }

    @Test func strongestMatchingAllowPolicyWins() {
        let view = Rules.effective(
            stored: .initial(user: F.user, app: F.app, service: .photos), service: F.service(.photos),
            policies: [F.policy("a", .photos, .allow, .addOnly), F.policy("b", .photos, .allow, .limited)],
            settings: nil, now: F.t0)
        #expect(view.level == .limited)
    }

    @Test func locationServicesOffDeniesLocationAndKeepsTheStoredChoice() {
        let view = Rules.effective(
            stored: Self.grantedWhenInUse, service: F.service(.location), policies: [], settings: Self.switchOff, now: F.t0)
        #expect(view.status == .denied && view.reason == .servicesDisabled && view.version == 3)
        let on = Rules.effective(
            stored: Self.grantedWhenInUse, service: F.service(.location), policies: [],
            settings: UserSettings(user: F.user, locationServicesEnabled: true), now: F.t0)
        #expect(on.status == .authorized && on.level == .whenInUse)
    }

    @Test func locationServicesSwitchOnlyAffectsLocation() {
        let camera = F.stored(.camera, .authorized, .full, reason: .userConsent, version: 1)
        let view = Rules.effective(stored: camera, service: F.service(.camera), policies: [], settings: Self.switchOff, now: F.t0)
        #expect(view.status == .authorized)
    }

    @Test func onceGrantLapsesAtItsDeadlineExactly() {
        let deadline = F.t0.addingTimeInterval(3600)
        let stored = F.stored(
            .location, .authorized, .whenInUse, once: true, expiresAt: deadline, reason: .userConsent, version: 1)
        let before = F.plain(stored, at: deadline.addingTimeInterval(-0.001))
        #expect(before.status == .authorized && before.once && before.expiresAt == deadline)
        let at = F.plain(stored, at: deadline)
        #expect(at.status == .notDetermined && at.reason == .expired && !at.once && at.expiresAt == nil && at.level == nil)
    }

    struct Precedence: Sendable, CustomTestStringConvertible {
        let name: String
        let restrict: Bool
        let allow: Bool
        let switchOff: Bool
        let lapsed: Bool
        let status: AuthorizationStatus
        let reason: Reason
        var testDescription: String { name }
    }

    /// SPEC §3 order: restrict → servicesDisabled → allow → lapsed once → stored.
    static let precedence: [Precedence] = [
        Precedence(
            name: "restrict beats all", restrict: true, allow: true, switchOff: true, lapsed: true, status: .restricted,
            reason: .policy),
        Precedence(
            name: "restrict beats allow", restrict: true, allow: true, switchOff: false, lapsed: false, status: .restricted,
            reason: .policy),
        Precedence(
            name: "switch beats allow", restrict: false, allow: true, switchOff: true, lapsed: true, status: .denied,
            reason: .servicesDisabled),
        Precedence(
            name: "switch beats lapse", restrict: false, allow: false, switchOff: true, lapsed: true, status: .denied,
            reason: .servicesDisabled),
        Precedence(
            name: "allow beats lapse", restrict: false, allow: true, switchOff: false, lapsed: true, status: .authorized,
            reason: .policy),
        Precedence(
            name: "lapse beats stored", restrict: false, allow: false, switchOff: false, lapsed: true, status: .notDetermined,
            reason: .expired),
        Precedence(
            name: "stored", restrict: false, allow: false, switchOff: false, lapsed: false, status: .authorized,
            reason: .userConsent),
    ]

    @Test(arguments: precedence)
    func rulesApplyInSpecOrder(row: Precedence) {
        let expiry = F.t0.addingTimeInterval(row.lapsed ? -1 : 60)
        let stored = F.stored(.location, .authorized, .whenInUse, once: true, expiresAt: expiry, reason: .userConsent, version: 5)
        var policies: [Policy] = []
        if row.allow { policies.append(F.policy("allow", .location, .allow, .whenInUse)) }
        if row.restrict { policies.append(F.policy("restrict", .location, .restrict)) }
        let view = Rules.effective(
            stored: stored, service: F.service(.location), policies: policies,
            settings: row.switchOff ? Self.switchOff : nil, now: F.t0)
        #expect(view.status == row.status)
        #expect(view.reason == row.reason)
        #expect(view.version == 5)
    }

    struct Match: Sendable, CustomTestStringConvertible {
        let name: String
        let policy: Policy
        let applies: Bool
        var testDescription: String { name }
    }

    static let matches: [Match] = [
        Match(name: "all apps, all users", policy: F.policy("p", .camera, .restrict), applies: true),
        Match(name: "this app", policy: F.policy("p", .camera, .restrict, app: F.app), applies: true),
        Match(name: "this user", policy: F.policy("p", .camera, .restrict, user: F.user), applies: true),
        Match(name: "this app and user", policy: F.policy("p", .camera, .restrict, app: F.app, user: F.user), applies: true),
        Match(name: "other app", policy: F.policy("p", .camera, .restrict, app: F.otherApp), applies: false),
        Match(name: "other user", policy: F.policy("p", .camera, .restrict, user: F.otherUser), applies: false),
        Match(name: "other service", policy: F.policy("p", .microphone, .restrict), applies: false),
    ]

    @Test(arguments: matches)
    func policiesMatchOnServiceAndOptionalAppAndUser(row: Match) {
        let stored = F.stored(.camera, .authorized, .full, reason: .userConsent, version: 1)
        let view = Rules.effective(stored: stored, service: F.service(.camera), policies: [row.policy], settings: nil, now: F.t0)
        #expect((view.status == .restricted) == row.applies)
    }
}
