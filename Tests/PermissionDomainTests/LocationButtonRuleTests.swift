import Foundation
import PermissionDomain
import TestSupport
import Testing

/// The location button (SPEC §11, HIG "Location button"): its prompt the first time, Allow
/// Once without a prompt once confirmed, nothing over a stronger grant or a refusal; the
/// decision on its prompt, and the reset that forgets the confirmation.
@Suite struct LocationButtonRuleTests {
    typealias F = Fixtures
    static let onceTTL: TimeInterval = 3600

    private func press(
        _ stored: StoredAuthorization, effective: Authorization? = nil, pending: Prompt? = nil, app: App? = F.registeredApp(),
        service: ServiceID = .location, at now: Date = F.t0
    ) throws(PermissionError) -> LocationButtonPlan {
        try Rules.locationButton(
            service: F.service(service), app: app, stored: stored, effective: effective ?? F.plain(stored, at: now),
            pending: pending, now: now, onceTTL: Self.onceTTL)
    }

    private func confirmed(_ stored: StoredAuthorization) -> StoredAuthorization {
        var copy = stored
        copy.buttonConfirmed = true
        return copy
    }

    @Test func theFirstPressPromptsWithAllowOnceAndDenyAndTheWhileUsingPurpose() throws {
        guard case .prompt(let plan) = try press(F.stored(.location)) else {
            Issue.record("expected a prompt")
            return
        }
        #expect(plan.kind == .locationButton)
        #expect(plan.options == [.allowOnce, .deny])
        #expect(plan.requestedLevel == .whenInUse)
        #expect(plan.purposeKey == "NSLocationWhenInUseUsageDescription")
        #expect(plan.purpose == F.allPurposeStrings["NSLocationWhenInUseUsageDescription"])
    }

    @Test func aPendingButtonPromptIsReturnedAndARequestPromptIsNot() throws {
        let button = F.prompt(.location, .whenInUse, kind: .locationButton)
        #expect(button.options == [.allowOnce, .deny])
        #expect(try press(F.stored(.location), pending: button) == .existing(button))
        let request = F.prompt(.location, .whenInUse)
        guard case .prompt = try press(F.stored(.location), pending: request) else {
            Issue.record("a pending request prompt does not stand for the button's")
            return
        }
        guard case .prompt = try press(F.stored(.location), pending: button, at: button.expiresAt) else {
            Issue.record("a button prompt past its deadline is not returned")
            return
        }
    }

    @Test func onceConfirmedAPressGrantsAllowOnceForTheOnceTTL() throws {
        let now = F.t0.addingTimeInterval(10)
        let stored = confirmed(F.stored(.location, reason: .expired, declined: [.always], version: 3))
        guard case .grant(let next) = try press(stored, at: now) else {
            Issue.record("expected a grant")
            return
        }
        #expect(next.status == .authorized && next.level == .whenInUse && next.once && !next.provisional)
        #expect(next.expiresAt == now.addingTimeInterval(Self.onceTTL))
        #expect(next.reason == .userConsent)
        #expect(next.purpose == F.allPurposeStrings["NSLocationWhenInUseUsageDescription"])
        #expect(next.buttonConfirmed && next.declinedLevels == [.always], "the confirmation and declined levels stay")
        #expect(next.version == 3, "the service sets the version")
        #expect(next.purposeLanguage == nil, "no locale: the base string")
    }

    /// SPEC §11: the text in the user's language, as the button's prompt shows it; the base
    /// string for a language the app has no text in.
    @Test func aConfirmedPressKeepsTheTextInTheUsersLanguage() throws {
        let key = "NSLocationWhenInUseUsageDescription"
        let base = F.registeredApp()
        let app = try App(
            id: base.id, name: base.name, purposeStrings: base.purposeStrings,
            localizedPurposeStrings: [LanguageTag("de"): [key: PurposeString("Haltestellen in der Nähe.")]], updatedAt: F.t0)
        let stored = confirmed(F.stored(.location))
        for (locale, text, language) in [
            ("de-CH", "Haltestellen in der Nähe.", "de"), ("fr", F.allPurposeStrings[key]?.rawValue, nil),
        ] {
            let plan = try Rules.locationButton(
                service: F.service(.location), app: app, stored: stored, effective: F.plain(stored, at: F.t0), pending: nil,
                now: F.t0, onceTTL: Self.onceTTL, locale: try LanguageTag(locale))
            guard case .grant(let next) = plan else {
                Issue.record("expected a grant")
                continue
            }
            #expect(next.purpose?.rawValue == text && next.purposeLanguage?.rawValue == language, "\(locale)")
        }
    }

    @Test func aPressWhileAllowOnceIsInForceRenewsItAndALapsedOneIsGrantedAgain() throws {
        let granted = confirmed(F.stored(.location, .authorized, .whenInUse, once: true, expiresAt: F.t0.addingTimeInterval(60)))
        let later = F.t0.addingTimeInterval(30)
        guard case .grant(let renewed) = try press(granted, at: later) else {
            Issue.record("expected a renewal")
            return
        }
        #expect(renewed.expiresAt == later.addingTimeInterval(Self.onceTTL))
        let lapsedAt = F.t0.addingTimeInterval(120)
        guard case .grant(let again) = try press(granted, at: lapsedAt) else {
            Issue.record("expected a grant after the lapse")
            return
        }
        #expect(again.expiresAt == lapsedAt.addingTimeInterval(Self.onceTTL))
    }

    @Test func aStrongerGrantARefusalOrARestrictionStandsWhateverTheConfirmation() throws {
        for confirmation in [false, true] {
            func stored(_ status: AuthorizationStatus, _ level: Level? = nil, provisional: Bool = false) -> StoredAuthorization {
                var record = F.stored(.location, status, level, provisional: provisional, reason: .userConsent, version: 1)
                record.buttonConfirmed = confirmation
                return record
            }
            #expect(try press(stored(.authorized, .whenInUse)) == .unchanged(.alreadyAuthorized))
            #expect(try press(stored(.authorized, .always)) == .unchanged(.alreadyAuthorized))
            #expect(try press(stored(.authorized, .always, provisional: true)) == .unchanged(.alreadyAuthorized))
            #expect(try press(stored(.denied)) == .unchanged(.denied))
            let undetermined = stored(.notDetermined)
            let restricted = Rules.effective(
                stored: undetermined, service: F.service(.location), policies: [F.policy("r", .location, .restrict)],
                settings: nil, now: F.t0)
            #expect(try press(undetermined, effective: restricted) == .unchanged(.restricted))
            let allowed = Rules.effective(
                stored: undetermined, service: F.service(.location), policies: [F.policy("a", .location, .allow, .whenInUse)],
                settings: nil, now: F.t0)
            #expect(try press(undetermined, effective: allowed) == .unchanged(.alreadyAuthorized))
            let off = Rules.effective(
                stored: undetermined, service: F.service(.location), policies: [],
                settings: UserSettings(user: F.user, locationServicesEnabled: false, updatedAt: F.t0), now: F.t0)
            #expect(try press(undetermined, effective: off) == .unchanged(.servicesDisabled))
        }
    }

    @Test func onlyAServiceWithAllowOnceHasTheButtonAndItNeedsTheWhileUsingPurposeString() {
        #expect(throws: PermissionError.notFound(what: "location button for service camera")) {
            try press(F.stored(.camera), service: .camera)
        }
        let app = F.registeredApp(without: ["NSLocationWhenInUseUsageDescription"])
        #expect(throws: PermissionError.missingPurposeString(key: "NSLocationWhenInUseUsageDescription")) {
            try press(confirmed(F.stored(.location, .denied, version: 1)), app: app)
        }
        #expect(throws: PermissionError.missingPurposeString(key: "NSLocationWhenInUseUsageDescription")) {
            try press(F.stored(.location), app: nil)
        }
    }

    @Test func allowOnceOnTheButtonPromptGrantsOnceAndConfirmsTheButton() throws {
        let prompt = F.prompt(.location, .whenInUse, kind: .locationButton)
        let next = try Rules.decide(
            prompt: prompt, choice: .allowOnce, stored: F.stored(.location), service: F.service(.location), now: F.t0,
            onceTTL: Self.onceTTL)
        #expect(next.status == .authorized && next.level == .whenInUse && next.once)
        #expect(next.expiresAt == F.t0.addingTimeInterval(Self.onceTTL))
        #expect(next.buttonConfirmed)
        let request = try Rules.decide(
            prompt: F.prompt(.location, .whenInUse), choice: .allowOnce, stored: F.stored(.location),
            service: F.service(.location), now: F.t0, onceTTL: Self.onceTTL)
        #expect(!request.buttonConfirmed, "Allow Once on a request prompt does not confirm the button")
    }

    @Test func denyOnTheButtonPromptChangesNothingSoTheNextPressAsksAgain() throws {
        let prompt = F.prompt(.location, .whenInUse, kind: .locationButton)
        let stored = F.stored(.location, reason: .expired, version: 2)
        let next = try Rules.decide(
            prompt: prompt, choice: .deny, stored: stored, service: F.service(.location), now: F.t0, onceTTL: Self.onceTTL)
        #expect(next == stored, "not denied, no declined level, not confirmed")
        #expect(throws: PermissionError.invalidChoice(choice: "allowWhileUsing", allowed: [.allowOnce, .deny])) {
            try Rules.decide(
                prompt: prompt, choice: .allowWhileUsing, stored: stored, service: F.service(.location), now: F.t0,
                onceTTL: Self.onceTTL)
        }
        guard case .prompt = try press(next) else {
            Issue.record("the next press prompts again")
            return
        }
    }

    @Test func aLapseKeepsTheConfirmationAndAResetOrReinstallForgetsIt() throws {
        let granted = confirmed(F.stored(.location, .authorized, .whenInUse, once: true, expiresAt: F.t0, version: 2))
        let ended = try #require(Rules.endOnce(stored: granted))
        #expect(ended.buttonConfirmed && ended.status == .notDetermined)
        let onlyConfirmed = confirmed(F.stored(.location, version: 3))
        for reason in [Reason.reset, .reinstall] {
            let reset = try #require(Rules.reset(stored: onlyConfirmed, reason: reason), "a confirmation alone is a change")
            #expect(!reset.buttonConfirmed && reset.reason == reason)
        }
        #expect(Rules.reset(stored: F.stored(.location, version: 3), reason: .reset) == nil)
    }
}
