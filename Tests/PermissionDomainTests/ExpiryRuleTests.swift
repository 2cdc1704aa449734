import Foundation
import PermissionDomain
import TestSupport
import Testing

/// Expiring grants (SPEC §11): `until` on a decision or a settings change, checked against the
/// time of the change and the horizon; the effective view and the lapse of a grant with an end.
@Suite struct ExpiryRuleTests {
    typealias F = Fixtures
    static let horizon: TimeInterval = 86_400
    static let clock = ManualClock(F.t0)

    private func decide(
        _ prompt: Prompt, _ choice: Choice, until: Date?, stored: StoredAuthorization? = nil
    ) throws(PermissionError) -> StoredAuthorization {
        try Rules.decide(
            prompt: prompt, choice: choice, stored: stored ?? F.stored(prompt.service), service: F.service(prompt.service),
            now: Self.clock.now, onceTTL: 3600, until: until, maxGrantDuration: Self.horizon)
    }

    @Test func expiryIsTheFutureUntilWithinTheHorizonTruncatedToMilliseconds() throws {
        let now = F.t0
        #expect(try Rules.expiry(until: nil, now: now, maxDuration: Self.horizon) == nil)
        #expect(
            try Rules.expiry(until: now + 0.001, now: now, maxDuration: Self.horizon)?.millisecondsSince1970
                == now.millisecondsSince1970 + 1)
        #expect(try Rules.expiry(until: now + 60.0004, now: now, maxDuration: Self.horizon) == now + 60)
        #expect(try Rules.expiry(until: now + Self.horizon, now: now, maxDuration: Self.horizon) == now + Self.horizon)
        let future = PermissionError.invalidCombination(field: "until", why: "must be in the future")
        #expect(throws: future) { try Rules.expiry(until: now, now: now, maxDuration: Self.horizon) }
        #expect(throws: future) { try Rules.expiry(until: now - 1, now: now, maxDuration: Self.horizon) }
        #expect(throws: future) { try Rules.expiry(until: now + 0.0004, now: now, maxDuration: Self.horizon) }
        #expect(
            throws: PermissionError.invalidCombination(
                field: "until", why: "must be at most 86400 seconds from now (the maximum grant duration)")
        ) { try Rules.expiry(until: now + Self.horizon + 0.001, now: now, maxDuration: Self.horizon) }
    }

    @Test func aDecisionWithUntilIsAGrantThatEndsThen() throws {
        let until = F.t0.addingTimeInterval(600)
        let camera = try decide(F.prompt(.camera, .full), .allow, until: until)
        #expect(camera.status == .authorized && camera.level == .full && !camera.once && camera.expiresAt == until)
        let location = try decide(F.prompt(.location, .always), .allowWhileUsing, until: until)
        #expect(location.provisional && location.expiresAt == until, "a provisional grant may end too")
        #expect(try decide(F.prompt(.camera, .full), .allow, until: nil).expiresAt == nil)
    }

    @Test func untilWithAChoiceThatGrantsNothingOrOnlyOnceIsRefused() throws {
        let until = F.t0.addingTimeInterval(600)
        #expect(
            throws: PermissionError.invalidCombination(field: "until", why: "only a choice that grants access can have an end")
        ) { try decide(F.prompt(.camera, .full), .deny, until: until) }
        #expect(throws: PermissionError.invalidCombination(field: "until", why: "an Allow Once grant ends on its own")) {
            try decide(F.prompt(.location, .whenInUse), .allowOnce, until: until)
        }
        #expect(throws: PermissionError.invalidCombination(field: "until", why: "must be in the future")) {
            try decide(F.prompt(.camera, .full), .allow, until: F.t0.addingTimeInterval(-1))
        }
    }

    @Test func settingsTakeUntilOnlyWithAuthorized() throws {
        let stored = F.stored(.location)
        let until = F.t0.addingTimeInterval(60)
        func set(_ status: AuthorizationStatus, _ level: Level?, _ until: Date?) throws(PermissionError) -> StoredAuthorization {
            try Rules.settings(
                stored: stored, effective: F.plain(stored), service: F.service(.location), app: F.registeredApp(), status: status,
                level: level,
                now: F.t0, until: until, maxGrantDuration: Self.horizon)
        }
        #expect(try set(.authorized, .always, until).expiresAt == until)
        #expect(try set(.authorized, .always, nil).expiresAt == nil)
        for status in [AuthorizationStatus.denied, .notDetermined] {
            #expect(
                throws: PermissionError.invalidCombination(field: "until", why: "only an authorized status can have an end")
            ) { try set(status, nil, until) }
        }
        #expect(
            throws: PermissionError.invalidCombination(
                field: "until", why: "must be at most 86400 seconds from now (the maximum grant duration)")
        ) { try set(.authorized, .always, F.t0.addingTimeInterval(Self.horizon + 1)) }
    }

    @Test func aGrantWithAnEndReadsExpiredFromThenAndLapsesToNotDetermined() throws {
        let until = F.t0.addingTimeInterval(60)
        let stored = F.stored(
            .camera, .authorized, .full, expiresAt: until, reason: .userConsent, declined: [], version: 3)
        #expect(F.plain(stored, at: until - 0.001).status == .authorized)
        #expect(F.plain(stored, at: until - 0.001).expiresAt == until)
        let lapsed = F.plain(stored, at: until)
        #expect(lapsed.status == .notDetermined && lapsed.reason == .expired && lapsed.version == 3)
        #expect(stored.lapsed(at: until) && !stored.lapsed(at: until - 0.001))

        let next = try #require(Rules.lapse(stored: stored))
        #expect(next.status == .notDetermined && next.reason == .expired && next.expiresAt == nil && next.level == nil)
        #expect(Rules.lapse(stored: F.stored(.camera, .authorized, .full, version: 1)) == nil, "no end, nothing lapses")
        #expect(Rules.endOnce(stored: stored) == nil, "sessionEnded ends Allow Once grants only")
        let once = F.stored(.location, .authorized, .whenInUse, once: true, expiresAt: until, version: 1)
        #expect(Rules.lapse(stored: once) == Rules.endOnce(stored: once))
    }

    /// The system's prompts about a grant held keep its end: choosing the smaller option of the
    /// upgrade prompt or a location alert must not leave access that lasts longer than the user
    /// said. A decision on the app's request is a new grant, with the end it gives or none.
    @Test func aSystemPromptKeepsTheEndAndARequestSetsItsOwn() throws {
        let until = F.t0.addingTimeInterval(600)
        let later = F.t0.addingTimeInterval(1200)
        let held = F.stored(
            .location, .authorized, .always, provisional: true, expiresAt: until, reason: .userConsent, version: 1)
        let upgrade = F.prompt(.location, .always, kind: .upgrade)
        let kept = try decide(upgrade, .keepWhileUsing, until: nil, stored: held)
        #expect(kept.status == .authorized && kept.level == .whenInUse && kept.expiresAt == until)
        let always = try decide(upgrade, .changeToAlways, until: nil, stored: held)
        #expect(always.level == .always && !always.provisional && always.expiresAt == until)
        let changed = try decide(upgrade, .changeToAlways, until: later, stored: held)
        #expect(changed.level == .always && changed.expiresAt == later, "an end given replaces it")

        let explicit = F.stored(.location, .authorized, .always, expiresAt: until, reason: .userSet, version: 1)
        let alert = F.prompt(.location, .always, kind: .locationAlert)
        let reduced = try decide(alert, .changeToWhileUsing, until: nil, stored: explicit)
        #expect(reduced.level == .whenInUse && reduced.expiresAt == until)
        #expect(try decide(alert, .keepAlways, until: nil, stored: explicit).expiresAt == until)

        let limited = F.stored(.photos, .authorized, .limited, expiresAt: until, reason: .userConsent, version: 1)
        let full = try decide(F.prompt(.photos, .full), .allowFull, until: nil, stored: limited)
        #expect(full.level == .full && full.expiresAt == nil, "a new grant without until has no end")
    }
}
